import { countPromptTokens } from '../../engine/index.js';
import type {
  EmbedInput,
  EmbedRequest,
  Engine,
  GenerateEvent,
  EngineInfo,
  FinishReason,
  GenerateOptions,
  GenerateRequest,
  LoadedModel,
  LoadOptions,
  RerankRequest,
  Timings,
  TokenizeRequest,
  DetokenizeRequest,
  SpeakRequest,
  TranscribeRequest,
} from '../../engine/index.js';
import { LmtabError } from '../../errors/index.js';
import { wavFile } from '../media/wav-file.js';
import type { ModelRecord } from '../../store/index.js';

/** What the fake engine does for one request. */
export interface FakeScript {
  /** Token texts to yield; default `['Hello', ',', ' world']`. */
  tokens?: string[];
  /** Events to yield in place of `tokens` (reasoning, tool calls, tokens), before `done`. */
  events?: Exclude<GenerateEvent, { type: 'done' }>[];
  /** The `done` event's finish reason in place of the one the script reaches. */
  finishReason?: FinishReason;
  /** Throw this before the first token. */
  failBefore?: unknown;
  /** Throw this after yielding all tokens (instead of `done`). */
  failAfter?: unknown;
  /** After the tokens, wait until the signal aborts (a generation that never ends by itself). */
  hang?: boolean;
  /** After the tokens, wait this many milliseconds before `done` (a generation that takes time). */
  delayMs?: number;
}

/** An Engine double that records what it was asked and plays a script. */
export interface FakeEngine extends Engine {
  requests: GenerateRequest[];
  embedRequests: EmbedRequest[];
  rerankRequests: RerankRequest[];
  /** Token-route requests, in order: tokenize, detokenize and applyTemplate. */
  tokenRequests: (TokenizeRequest | DetokenizeRequest | GenerateRequest)[];
  /** Audio-route requests, in order: transcribe and speak. */
  audioRequests: (TranscribeRequest | SpeakRequest)[];
  signals: AbortSignal[];
  /** Generations started and not yet ended (the engine's active count). */
  running: number;
  loads: { model: string; options: LoadOptions | undefined }[];
  unloads: (string | undefined)[];
  resident: LoadedModel[];
}

/** Engine info the fake reports. */
export const fakeEngineInfo: EngineInfo = {
  engine: 'fake',
  backend: 'webgpu',
  adapter: 'Test GPU',
  threads: 2,
  gpuLayers: 17,
  crossOriginIsolated: true,
};

/** Timings every fake `done` event carries, in milliseconds. */
export const fakeTimings: Timings = { loadMs: 1.5, promptMs: 20, decodeMs: 30.25, totalMs: 52 };

/**
 * Creates an Engine double: it honours `maxTokens` (finish `length`) and `stop` (finish `stop`
 * before a token equal to a stop sequence, reported as `stopSequence`), and throws an AbortError once its signal aborts.
 */
export function createFakeEngine(
  script: (request: GenerateRequest) => FakeScript = () => ({}),
): FakeEngine {
  const engine: FakeEngine = {
    requests: [],
    embedRequests: [],
    rerankRequests: [],
    tokenRequests: [],
    audioRequests: [],
    signals: [],
    running: 0,
    loads: [],
    unloads: [],
    resident: [],
    generate(request: GenerateRequest, options?: GenerateOptions) {
      engine.requests.push(request);
      const signal = options?.signal ?? new AbortController().signal;
      engine.signals.push(signal);
      return counted(engine, play(request, script(request), signal));
    },
    countTokens: (request, options) => countPromptTokens(engine.generate, request, options),
    load(model, options) {
      engine.loads.push({ model, options });
      const loaded: LoadedModel = {
        model,
        sizeBytes: 229_000_000,
        contextLength: options?.contextLength ?? 4096,
        parallel: 1,
        active: 0,
        info: fakeEngineInfo,
        expiresAt: Date.UTC(2026, 10, 21, 12, 5, 0),
      };
      engine.resident.push(loaded);
      return Promise.resolve(loaded);
    },
    unload(model) {
      engine.unloads.push(model);
      engine.resident = engine.resident.filter((m) => model !== undefined && m.model !== model);
      return Promise.resolve();
    },
    loaded: () => engine.resident,
    info: () => Promise.resolve(fakeEngineInfo),
    supportsImages: (record: ModelRecord) => record.projector !== undefined,
    embed(request: EmbedRequest) {
      engine.embedRequests.push(request);
      return Promise.resolve({
        embeddings: request.inputs.map(fakeVector),
        promptTokens: request.inputs.reduce((sum, input) => sum + fakeTokens(input), 0),
        timings: { loadMs: fakeTimings.loadMs, totalMs: fakeTimings.totalMs },
      });
    },
    rerank(request: RerankRequest) {
      engine.rerankRequests.push(request);
      return Promise.resolve({
        scores: request.documents.map((document) => fakeRelevance(request.query, document)),
        promptTokens: request.documents.reduce(
          (sum, document) => sum + fakeTokens(request.query) + fakeTokens(document) + 3,
          0,
        ),
        timings: { loadMs: fakeTimings.loadMs, totalMs: fakeTimings.totalMs },
      });
    },
    // The fake tokenizer is byte-level: each UTF-8 byte is the token of its value; BOS is 256.
    tokenize(request: TokenizeRequest) {
      engine.tokenRequests.push(request);
      const parts = typeof request.content === 'string' ? [request.content] : request.content;
      const tokens = [
        ...(request.addSpecial === true ? [fakeBos] : []),
        ...parts.flatMap((part) =>
          typeof part === 'number' ? [part] : [...new TextEncoder().encode(part)],
        ),
      ];
      return Promise.resolve({
        tokens,
        ...(request.withPieces === true && { pieces: tokens.map(fakePiece) }),
      });
    },
    detokenize(request: DetokenizeRequest) {
      engine.tokenRequests.push(request);
      const outside = request.tokens.find((token) => token > fakeBos);
      if (outside !== undefined) {
        return Promise.reject(
          new LmtabError('invalid_request', `tokens: token ${outside} is not in the vocabulary.`, {
            param: 'tokens',
          }),
        );
      }
      return Promise.resolve(Uint8Array.from(request.tokens.flatMap((t) => [...fakePiece(t)])));
    },
    // The fake hears the file's size and format; a model named `*-deaf` hears nothing.
    async *transcribe(request: TranscribeRequest) {
      engine.audioRequests.push(request);
      if (request.model.endsWith('-deaf')) {
        throw new LmtabError('invalid_request', `Model "${request.model}" cannot hear audio.`, {
          param: 'model',
        });
      }
      await Promise.resolve();
      const words = ['Heard', ` ${request.audio.length}`, ' bytes', ` of ${request.format}.`];
      for (const text of words) yield { type: 'delta' as const, text };
      yield {
        type: 'done' as const,
        text: words.join(''),
        usage: { inputTokens: 25, outputTokens: words.length },
        timings: { loadMs: fakeTimings.loadMs, totalMs: fakeTimings.totalMs },
      };
    },
    // The fake speaks one 16-bit sample per UTF-8 byte of the input, at 24 kHz, in two chunks.
    async *speak(request: SpeakRequest) {
      engine.audioRequests.push(request);
      await Promise.resolve();
      const samples = new Uint8Array(new TextEncoder().encode(request.input).length * 2);
      const half = samples.length / 2;
      const first = samples.subarray(0, half);
      yield {
        audio:
          request.format === 'wav'
            ? wavFile(first, fakeSpeechRate, { dataBytes: samples.length })
            : first,
        sampleRate: fakeSpeechRate,
        final: false,
      };
      yield { audio: samples.subarray(half), sampleRate: fakeSpeechRate, final: true };
    },
    applyTemplate(request: GenerateRequest) {
      engine.tokenRequests.push(request);
      const messages = request.input.kind === 'chat' ? request.input.messages : [];
      const turns = messages.map(
        (m) =>
          `<|im_start|>${m.role}\n${m.content.map((p) => (p.type === 'text' ? p.text : '<image>')).join('')}<|im_end|>\n`,
      );
      return Promise.resolve(`${turns.join('')}<|im_start|>assistant\n`);
    },
  };
  return engine;
}

/** The fake speaker's sample rate. */
export const fakeSpeechRate = 24_000;

/** The fake tokenizer's BOS token (the tokens below it are bytes). */
export const fakeBos = 256;

/** The bytes a fake token stands for. */
function fakePiece(token: number): Uint8Array {
  return token === fakeBos ? new TextEncoder().encode('<s>') : Uint8Array.of(token);
}

/** The fake reranker's score: the share of the query's words the document has, less its length / 1000. */
export function fakeRelevance(query: string, document: string): number {
  const words = new Set(document.toLowerCase().split(/\W+/).filter(Boolean));
  const asked = query.toLowerCase().split(/\W+/).filter(Boolean);
  const found = asked.filter((word) => words.has(word)).length;
  return found / Math.max(1, asked.length) - document.length / 1000;
}

/** Dimension of the fake engine's vectors. */
export const fakeEmbeddingLength = 8;

/** Tokens the fake engine counts for an input: one per word, or the ids given. */
export function fakeTokens(input: EmbedInput): number {
  return typeof input === 'string' ? input.split(/\s+/).filter(Boolean).length : input.length;
}

/** A deterministic unit vector per input (a hash of it spread over the dimensions). */
export function fakeVector(input: EmbedInput): Float32Array {
  const text = typeof input === 'string' ? input : input.join(',');
  const vector = new Float32Array(fakeEmbeddingLength);
  for (let i = 0; i < text.length; i++) vector[i % vector.length]! += text.charCodeAt(i) * (i + 1);
  vector[0]! += 1;
  const norm = Math.hypot(...vector);
  return vector.map((x) => x / norm);
}

/** Counts the generation in `engine.running` from its first read until it ends, as engines do. */
async function* counted(
  engine: FakeEngine,
  events: AsyncGenerator<GenerateEvent>,
): AsyncGenerator<GenerateEvent> {
  engine.running++;
  try {
    yield* events;
  } finally {
    engine.running--;
  }
}

async function* play(request: GenerateRequest, script: FakeScript, signal: AbortSignal) {
  const abortError = () => new DOMException('The generation was aborted.', 'AbortError');
  await Promise.resolve();
  if (script.failBefore !== undefined) throw script.failBefore;
  const limit = request.sampling.maxTokens ?? Infinity;
  let finishReason: FinishReason = 'stop';
  let stopSequence: string | undefined;
  let count = 0;
  for (const event of script.events ?? []) {
    if (signal.aborted) throw abortError();
    count++;
    yield event;
    await Promise.resolve();
  }
  for (const text of script.events === undefined
    ? (script.tokens ?? ['Hello', ',', ' world'])
    : []) {
    if (signal.aborted) throw abortError();
    if (request.sampling.stop?.includes(text) === true) {
      stopSequence = text;
      break;
    }
    if (count === limit) {
      finishReason = 'length';
      break;
    }
    count++;
    yield { type: 'token' as const, text };
    await Promise.resolve();
  }
  if (script.delayMs !== undefined && !signal.aborted) {
    await new Promise((resolve) => setTimeout(resolve, script.delayMs));
  }
  if (script.hang === true && !signal.aborted) {
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
  }
  if (signal.aborted) throw abortError();
  if (script.failAfter !== undefined) throw script.failAfter;
  yield {
    type: 'done' as const,
    finishReason: script.finishReason ?? finishReason,
    usage: { promptTokens: 7, completionTokens: count },
    timings: fakeTimings,
    ...(stopSequence === undefined ? {} : { stopSequence }),
  };
}
