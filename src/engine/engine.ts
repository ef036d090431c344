import type { ModelRecord } from '../store/index.js';
import type { GpuAdapterReport } from './gpu-adapter-report.js';

export { keyGpuLimits } from './gpu-adapter-report.js';
export type { GpuAdapterReport, KeyGpuLimit } from './gpu-adapter-report.js';

/**
 * What llama.cpp allocated for a loaded model, in MiB, as its log says (`... buffer size = N MiB`),
 * summed over backends: weights, context cache (attention KV and recurrent state), and compute
 * (the graph's working memory and the logits output).
 */
export interface EngineBuffers {
  modelMiB: number;
  cacheMiB: number;
  computeMiB: number;
}

/** One part of a chat message's content, as the engine sees it (no wire spellings). */
export type ContentPart =
  | { type: 'text'; text: string }
  | {
      type: 'image';
      /** Encoded image bytes (PNG, JPEG, ...). */
      data: Uint8Array;
      /** MIME type of `data`, e.g. `image/png`. */
      mimeType: string;
    }
  | {
      type: 'audio';
      /** An encoded audio file, as llama.cpp's decoder reads it. */
      data: Uint8Array;
      format: AudioFormat;
    };

/** Audio files llama.cpp's decoder (miniaudio, in mtmd's helper) reads. */
export type AudioFormat = 'wav' | 'mp3' | 'flac';

/** A JSON Schema, as a plain object (draft 2020-12 keywords; what the engine enforces is checked). */
export type JsonSchema = Record<string, unknown>;

/** A function the model may call. */
export interface ToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments object. */
  parameters: JsonSchema;
  /** The caller asked for arguments that always validate (OpenAI's `strict`). */
  strict?: boolean;
}

/** A call the model made (or made in an earlier turn). */
export interface ToolCall {
  /** Call id, echoed by the tool message that answers it. */
  id: string;
  name: string;
  /** The arguments object as JSON text, as the model wrote it. */
  arguments: string;
}

/**
 * Which tools the model may or must call: `auto` lets it choose, `none` never calls, `required`
 * always calls one of the tools, `{ name }` always calls that one.
 */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** The shape the answer's text must have; absent means free text. */
export interface OutputFormat {
  type: 'json';
  /** The JSON Schema the answer validates against; any JSON value when absent. */
  schema?: JsonSchema;
}

/** A chat message after validation: content is always a list of parts. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: ContentPart[];
  /** Assistant messages: the tool calls it made. */
  toolCalls?: ToolCall[];
  /** Assistant messages: its reasoning (thinking) text, where a history carries it. */
  reasoning?: string;
  /** Tool messages: the id of the call this message answers. */
  toolCallId?: string;
  /** Tool messages: the name of the tool that answered (Ollama's `tool_name`). */
  toolName?: string;
}

/** Sampling settings of one generation; an absent field means the model's or engine's default. */
export interface SamplingOptions {
  /** Randomness, 0 = greedy. */
  temperature?: number;
  /** Nucleus sampling mass, 0..1. */
  topP?: number;
  /** Keep only the K most likely tokens; 0 disables. */
  topK?: number;
  /** Minimum probability relative to the top token, 0..1. */
  minP?: number;
  /** Penalty on repeated tokens, 1 = off. */
  repeatPenalty?: number;
  /** OpenAI-style frequency penalty, -2..2. */
  frequencyPenalty?: number;
  /** OpenAI-style presence penalty, -2..2. */
  presencePenalty?: number;
  /** Random seed for reproducible sampling. */
  seed?: number;
  /** Stop sequences; generation ends before the first one and it is not returned. */
  stop?: string[];
  /** Most tokens to generate; the engine's limit when absent. */
  maxTokens?: number;
  /** Keep generating past end-of-sequence tokens (benchmarks use it for fixed-length runs). */
  ignoreEos?: boolean;
}

/** What to feed the model: chat messages rendered by the model's chat template, or a raw prompt. */
export type GenerateInput =
  | { kind: 'chat'; messages: ChatMessage[] }
  | {
      kind: 'prompt';
      /** Text given to the model as is (no chat template). */
      prompt: string;
      /** Images referenced by the prompt, in order. */
      images?: ContentPart[];
    };

/** The one internal request every protocol converts to. */
export interface GenerateRequest {
  /** Id of a model in the store. */
  model: string;
  input: GenerateInput;
  sampling: SamplingOptions;
  /** Context length to load the model with (tokens); the engine's default when absent. */
  contextLength?: number;
  /** Functions the model may call (chat input only). */
  tools?: ToolDefinition[];
  /** Default `auto` when `tools` are given. */
  toolChoice?: ToolChoice;
  /** Whether one answer may hold several calls; default true. */
  parallelToolCalls?: boolean;
  /** Constrains the answer's text; free text when absent. */
  format?: OutputFormat;
  /** Per-token log probabilities with this many alternatives (0 to 20) each; none when absent. */
  logprobs?: { top: number };
  /** Thinking models: false asks the template to skip thinking; the model's default when absent. */
  thinking?: boolean;
}

/** Why a generation ended: a stop token or sequence, the token limit, or tool calls to run. */
export type FinishReason = 'stop' | 'length' | 'tool_calls';

/** One candidate token and its log probability. */
export interface TokenLogprob {
  token: string;
  /** Natural log of the probability. */
  logprob: number;
  /** The token's UTF-8 bytes (a token may hold part of a character). */
  bytes: number[];
}

/** The sampled token's log probability and its most likely alternatives. */
export interface SampledLogprob extends TokenLogprob {
  top: TokenLogprob[];
}

/** Token counts of one generation. */
export interface Usage {
  /** Every token of the prompt, the cached ones included. */
  promptTokens: number;
  /** Of `promptTokens`, those the engine reused from its prompt cache instead of processing. */
  cachedPromptTokens?: number;
  completionTokens: number;
}

/** Durations of one generation, in milliseconds. */
export interface Timings {
  /** Time spent loading the model for this request (0 when it was already loaded). */
  loadMs: number;
  /** Prompt processing time. */
  promptMs: number;
  /** Token generation time. */
  decodeMs: number;
  /** Wall time from the request to the last event. */
  totalMs: number;
}

/**
 * Events of one generation, in order: any number of `token`, `reasoning` and `tool_call`, then one
 * `done`. A `tool_call` with a new `index` starts a call and carries its `id` and `name`; later ones
 * of the same index add pieces of its arguments' JSON text.
 */
export type GenerateEvent =
  | {
      type: 'token';
      text: string;
      /** When `logprobs` was asked: one entry per token this piece holds. */
      logprobs?: SampledLogprob[];
    }
  | { type: 'reasoning'; text: string }
  | { type: 'tool_call'; index: number; id?: string; name?: string; argumentsDelta: string }
  | {
      type: 'done';
      finishReason: FinishReason;
      usage: Usage;
      timings: Timings;
      /** Which of `sampling.stop` ended the answer, when one did and the engine can tell. */
      stopSequence?: string;
    };

/** Which compute path the engine uses, as reported to users. */
export interface EngineInfo {
  /** Engine library, e.g. `wllama`. */
  engine: string;
  /** `webgpu` when layers run on a GPU adapter, `wasm` when on the CPU only. */
  backend: 'webgpu' | 'wasm';
  /** Which build of the engine runs it, e.g. `lmtab-cpu` (see `src/engine/builds/cpu-build.ts`). */
  build?: string;
  /** Description of the WebGPU adapter in use, when there is one. */
  adapter?: string;
  /** CPU threads used by WebAssembly. */
  threads: number;
  /** Layers offloaded to the GPU (0 on the CPU path). */
  gpuLayers: number;
  /** Whether the page is cross-origin isolated (needed for more than one thread). */
  crossOriginIsolated: boolean;
  /** Why WebGPU is not used, when it is not. */
  fallbackReason?: string;
  /** Why a CPU load runs on another build than lmtab's (a projector only that build knows). */
  buildReason?: string;
  /** Why the model was loaded with a longer context than asked (a prompt that did not fit). */
  contextReason?: string;
  /**
   * Type of a loaded model's KV cache as llama.cpp reports it (`f16`, `q8_0`; `f16/q8_0` when keys
   * and values differ); absent before a load and where the engine does not say.
   */
  kvCache?: string;
  /**
   * The dot products of the CPU build's K-quants (Q4_K, Q6_K): `relaxed-simd`, lmtab's own kernels
   * (`wasm/kernels/`) where the browser has relaxed SIMD, or `simd128`, ggml's. wllama's memory64
   * build reports `relaxed-simd` where lmtab's wasm64 kernels went into it, nothing where its own
   * generic ones run. Absent on other builds.
   */
  kernels?: 'relaxed-simd' | 'simd128';
  /** What llama.cpp allocated for the loaded model (weights, cache, compute), as its log says. */
  buffers?: EngineBuffers;
  /**
   * The WebGPU adapter the engine's context offers (requested as `high-performance`), whether this
   * engine uses it or not (web-llm's catalog needs it where llama.cpp cannot use it), so pages need
   * not ask for one again: vendor, architecture, features and key limits.
   */
  gpu?: GpuAdapterReport;
  /**
   * A loaded model's backend lines as llama.cpp and lmtab's GPU watch logged them (offloaded layers,
   * the adapter llama.cpp took, graph splits, WebGPU buffers, device losses), kept whole for the
   * load's life (`backend-record.ts`); absent before a load.
   */
  backendLines?: string[];
  /**
   * A loaded model's media besides text, as llama.cpp read its projector: images in, audio in,
   * audio out (speech), a realtime audio session. Absent for a model without a projector.
   */
  media?: { images: boolean; audioInput: boolean; audioOutput: boolean; realtime: boolean };
  /** Graph splits of a loaded model's last reserved graph, as llama.cpp logged them. */
  graphSplits?: number;
  /** The last GPU device loss this engine saw: when (epoch ms) and the line that said so. */
  gpuLost?: { at: number; line: string };
}

/** A model resident in memory. */
export interface LoadedModel {
  model: string;
  /** Bytes of model files held. */
  sizeBytes: number;
  contextLength: number;
  /** Parallel slots (concurrent requests served at once). */
  parallel: number;
  /** Requests generating on it now. */
  active: number;
  info: EngineInfo;
  /** Epoch milliseconds when it will be unloaded if idle. */
  expiresAt: number;
}

/** Options of {@link Engine.load}. */
export interface LoadOptions {
  /** Context length in tokens shared by all slots; default 4096. */
  contextLength?: number;
  signal?: AbortSignal;
}

/** Options of {@link Engine.generate}. */
export interface GenerateOptions {
  /** Aborting stops the generation and frees its slot. */
  signal?: AbortSignal;
}

/** One input of an embedding request: text, or token ids of the model's vocabulary. */
export type EmbedInput = string | number[];

/** The internal embeddings request every protocol converts to. */
export interface EmbedRequest {
  /** Id of an embedding model in the store. */
  model: string;
  /** One vector is made per input, in this order. */
  inputs: EmbedInput[];
  /** Inputs longer than the context: cut to fit (true) or an `invalid_request` error (false). */
  truncate: boolean;
  /**
   * Context length to load the model with (tokens); when absent, one sized to the request's longest
   * input (at least 512, at most the training context), so a model trained for 32k tokens does not
   * load with 32k-token batches for a sentence.
   */
  contextLength?: number;
}

/** The vectors of one embeddings request. */
export interface EmbedResult {
  /** One L2-normalized vector per input, in input order. */
  embeddings: Float32Array[];
  /** Tokens of all inputs, as embedded (after any truncation). */
  promptTokens: number;
  /** Durations in milliseconds: loading the model (0 when resident), and the whole request. */
  timings: Pick<Timings, 'loadMs' | 'totalMs'>;
}

/** The internal rerank request (llama-server's `/v1/rerank`, Cohere's and Jina's shapes). */
export interface RerankRequest {
  /** Id of a reranker in the store (a GGUF whose pooling type is `rank`). */
  model: string;
  query: string;
  /** Each is scored against the query, on its own. */
  documents: string[];
}

/** Each document's relevance to the query, as the reranker scores it. */
export interface RerankResult {
  /** One score per document, in the documents' order (higher is more relevant). */
  scores: number[];
  /** Tokens of every query-and-document pair the model read. */
  promptTokens: number;
  /** Durations in milliseconds: loading the model (0 when resident), and the whole request. */
  timings: Pick<Timings, 'loadMs' | 'totalMs'>;
}

/** llama-server's `/tokenize`: a text as the model's tokenizer splits it. */
export interface TokenizeRequest {
  /** Id of a stored chat model. */
  model: string;
  /** The text, or llama-server's mixed form: strings and token ids, in order. */
  content: string | (string | number)[];
  /** Add the model's BOS (and EOS) tokens as its tokenizer would; default false. */
  addSpecial?: boolean;
  /** Read special tokens' texts (`<|im_start|>`) as those tokens; default true. */
  parseSpecial?: boolean;
  /** Also return each token's text; default false. */
  withPieces?: boolean;
}

/** The tokens of a {@link TokenizeRequest}. */
export interface TokenizeResult {
  tokens: number[];
  /** With `withPieces`: each token's bytes (a token may be part of a UTF-8 character). */
  pieces?: Uint8Array[];
}

/** llama-server's `/detokenize`: token ids as the text they stand for. */
export interface DetokenizeRequest {
  model: string;
  tokens: number[];
}

/** The internal transcription request (OpenAI's `/v1/audio/transcriptions`). */
export interface TranscribeRequest {
  /** Id of a stored model that hears (its projector has an audio encoder). */
  model: string;
  /** The audio file. */
  audio: Uint8Array;
  format: AudioFormat;
  /** ISO-639-1 language of the speech, as a hint to the model. */
  language?: string;
  /** Text that precedes the audio (earlier transcript, spellings), as a hint to the model. */
  prompt?: string;
  temperature?: number;
  /** Most tokens of transcript; the engine's limit when absent. */
  maxTokens?: number;
}

/** Events of one transcription: any number of `delta`, then one `done` with the whole text. */
export type TranscribeEvent =
  | { type: 'delta'; text: string }
  | {
      type: 'done';
      text: string;
      /** Tokens read (the audio's and the instruction's) and written. */
      usage: { inputTokens: number; outputTokens: number };
      timings: Pick<Timings, 'loadMs' | 'totalMs'>;
    };

/** The internal speech request (OpenAI's `/v1/audio/speech`). */
export interface SpeakRequest {
  /** Id of a stored model that speaks (it generates audio). */
  model: string;
  /** The text to say. */
  input: string;
  /** One of the model's voices; its first when absent. */
  voice?: string;
  /** `wav` (a RIFF file) or `pcm` (raw 16-bit little-endian samples). */
  format: 'wav' | 'pcm';
}

/** One piece of spoken audio; the last has `final`. */
export interface SpeechChunk {
  /** Audio in the requested format (a stream's WAV header comes with its first chunk). */
  audio: Uint8Array;
  sampleRate: number;
  final: boolean;
}

/** Runs models from the store. Implementations: wllama (GGUF), web-llm (MLC), and a switch over both. */
export interface Engine {
  /** Generates for one request, loading (or swapping to) its model first. */
  generate(request: GenerateRequest, options?: GenerateOptions): AsyncIterable<GenerateEvent>;
  /**
   * Counts the prompt tokens of a request as the model sees it (its tokenizer and chat template,
   * tools included), loading the model first; generates nothing the caller sees.
   */
  countTokens(request: GenerateRequest, options?: GenerateOptions): Promise<number>;
  /** Loads a model ahead of use. */
  load(model: string, options?: LoadOptions): Promise<LoadedModel>;
  /** Unloads one model, or all when none is named. */
  unload(model?: string): Promise<void>;
  /** Models in memory now. */
  loaded(): LoadedModel[];
  /** The compute path, probed without loading a model. */
  info(): Promise<EngineInfo>;
  /** Whether a stored model can take images (it has a projector). */
  supportsImages(record: ModelRecord): boolean;
  /**
   * Writes down the speech of an audio file, loading the model first; a model without an audio
   * encoder is refused (400) with the reason.
   */
  transcribe(request: TranscribeRequest, options?: GenerateOptions): AsyncIterable<TranscribeEvent>;
  /** Speaks a text with a model that generates audio, loading it first. */
  speak(request: SpeakRequest, options?: GenerateOptions): AsyncIterable<SpeechChunk>;
  /** Embeds inputs with an embedding model, loaded beside any resident chat model. */
  embed(request: EmbedRequest, options?: GenerateOptions): Promise<EmbedResult>;
  /** Scores documents against a query with a reranker, loaded as embedding models are. */
  rerank(request: RerankRequest, options?: GenerateOptions): Promise<RerankResult>;
  /** Splits a text into the model's tokens, loading the model first (llama-server's `/tokenize`). */
  tokenize(request: TokenizeRequest, options?: GenerateOptions): Promise<TokenizeResult>;
  /** The bytes token ids stand for, loading the model first (llama-server's `/detokenize`). */
  detokenize(request: DetokenizeRequest, options?: GenerateOptions): Promise<Uint8Array>;
  /**
   * The prompt a chat request becomes with the model's chat template (tools included), as the
   * engine would process it; generates nothing (llama-server's `/apply-template`).
   */
  applyTemplate(request: GenerateRequest, options?: GenerateOptions): Promise<string>;
}

/** Load settings a person chooses (Developer tab); absent fields use the engine's defaults. */
export interface EngineSettings {
  /** Layers offloaded to WebGPU; absent = all, 0 = CPU only. */
  gpuLayers?: number;
  /** Context length in tokens. */
  contextLength?: number;
  /** WebAssembly threads. */
  threads?: number;
  /**
   * KV cache type: `auto` (the default) keeps it in Q8_0 on lmtab's CPU build where a model's heads
   * allow (`src/engine/builds/kv-cache.ts`), `f16` keeps llama.cpp's default F16 everywhere.
   */
  kvCache?: 'auto' | 'f16';
  /**
   * Which build runs a CPU load: `lmtab` (the default), lmtab's SIMD build (`wasm/`); `wllama`,
   * wllama's stock build, whose llama.cpp is newer (`wasm/README.md`) and whose kernels are generic.
   */
  cpuEngine?: 'lmtab' | 'wllama';
}
