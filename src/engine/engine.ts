import type { ModelRecord } from '../store/index.js';

/** One part of a chat message's content, as the engine sees it (no wire spellings). */
export type ContentPart =
  | { type: 'text'; text: string }
  | {
      type: 'image';
      /** Encoded image bytes (PNG, JPEG, ...). */
      data: Uint8Array;
      /** MIME type of `data`, e.g. `image/png`. */
      mimeType: string;
    };

/** A chat message after validation: content is always a list of parts. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: ContentPart[];
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
}

/** Why a generation ended: a stop token or sequence, or the token limit. */
export type FinishReason = 'stop' | 'length';

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

/** Events of one generation, in order: any number of `token`, then one `done`. */
export type GenerateEvent =
  | { type: 'token'; text: string }
  | { type: 'done'; finishReason: FinishReason; usage: Usage; timings: Timings };

/** Which compute path the engine uses, as reported to users. */
export interface EngineInfo {
  /** Engine library, e.g. `wllama`. */
  engine: string;
  /** `webgpu` when layers run on a GPU adapter, `wasm` when on the CPU only. */
  backend: 'webgpu' | 'wasm';
  /** Which build of the engine runs it, e.g. `lmtab-cpu` (see `src/engine/cpu-build.ts`). */
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
  /**
   * The WebGPU adapter the engine's context offers, whether this engine uses it or not (web-llm's
   * catalog needs it where llama.cpp cannot use it), so pages need not ask for one again.
   */
  gpu?: { adapter: string; features: string[] };
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

/** Runs models from the store. Implementations: wllama (GGUF), web-llm (MLC), and a switch over both. */
export interface Engine {
  /** Generates for one request, loading (or swapping to) its model first. */
  generate(request: GenerateRequest, options?: GenerateOptions): AsyncIterable<GenerateEvent>;
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
}

/** Load settings a person chooses (Developer tab); absent fields use the engine's defaults. */
export interface EngineSettings {
  /** Layers offloaded to WebGPU; absent = all, 0 = CPU only. */
  gpuLayers?: number;
  /** Context length in tokens. */
  contextLength?: number;
  /** WebAssembly threads. */
  threads?: number;
}
