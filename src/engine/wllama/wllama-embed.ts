import { WllamaAbortError, WllamaError, type Wllama } from '@wllama/wllama/esm/index.js';
import { LmtabError, toLmtabError } from '../../errors/index.js';
import type { ModelRecord, ModelStore } from '../../store/index.js';
import { createWllamaFor, type CpuBuild } from '../builds/cpu-build.js';
import { assertCanEmbed, assertCanRerank, isReranker } from '../embedding-model.js';
import type {
  EmbedInput,
  EmbedRequest,
  EmbedResult,
  EngineInfo,
  GenerateOptions,
  LoadedModel,
  RerankRequest,
  RerankResult,
} from '../engine.js';
import { loadWllama } from './load-wllama.js';
import { BackendRecord } from '../gpu/backend-record.js';
import { LogRing } from '../log-ring.js';
import { confirmBackend } from '../gpu/plan-backend.js';
import { createResidency, describeResident, type ResidencyState } from '../residency.js';
import { SlotQueue } from '../slot-queue.js';
import { wllamaProxy, type WllamaProxy } from '../wllama-internals.js';
import { engineDefaults } from '../engine-defaults.js';

/** Options of {@link createWllamaEmbedder}. */
export interface WllamaEmbedderOptions {
  /** Where models are read from. */
  store: Pick<ModelStore, 'get' | 'open' | 'touch'>;
  /** URL of wllama's `wllama.wasm`. */
  wasmUrl: string;
  /** lmtab's CPU build, used for a CPU-only plan (as the chat engine does); none: the stock build. */
  cpuBuild?: CpuBuild;
  /** The compute path to try (the chat engine's plan); WebGPU falls back to WebAssembly. */
  plannedInfo: () => Promise<EngineInfo>;
  /** Inputs embedded together in one llama.cpp batch (parallel slots); default {@link engineDefaults.embeddingSlots} (16). */
  parallel?: number;
  /** Context length when a request names none and the GGUF has none; default {@link engineDefaults.embeddingContextLength} (2048). */
  contextLength?: number;
  /** Milliseconds an idle embedding model stays loaded. */
  keepAliveMs: number;
  /** Clock in epoch milliseconds. */
  clock: () => number;
}

/** Embedding models, loaded beside the chat engine's resident model (see {@link createWllamaEmbedder}). */
export interface WllamaEmbedder {
  embed(request: EmbedRequest, options?: GenerateOptions): Promise<EmbedResult>;
  /** Scores documents against a query with a reranker (pooling `rank`), loaded in the same place. */
  rerank(request: RerankRequest, options?: GenerateOptions): Promise<RerankResult>;
  /** Unloads the embedding model (any, when none is named). */
  unload(model?: string): Promise<void>;
  /** The resident embedding model, if any. */
  loaded(): LoadedModel[];
}

interface LoadedEmbedder {
  model: string;
  /** The loaded instance's parallel slots, shared by every request's inputs. */
  slots: SlotQueue;
  wllama: Wllama;
  proxy: WllamaProxy;
  sizeBytes: number;
  contextLength: number;
  info: EngineInfo;
  log: LogRing;
}

/** One vector as llama-server's OpenAI-shaped embedding result carries it. */
interface EmbeddingAnswer {
  data?: { embedding?: number[] }[];
  usage?: { prompt_tokens?: number };
  message?: string;
}

/** How often an input over the context is cut shorter and tried again before giving up. */
const maxTruncations = 6;

/**
 * Embedding instances for the wllama engine: one embedding model at a time in its own wllama
 * worker, resident beside the chat model (embedding models are small; evicting the chat model to
 * embed would cost a full reload of it on the next chat turn).
 *
 * Why not `Wllama.createEmbedding`: wllama 3.8.1 posts one llama.cpp task per input of an array,
 * but its result loop keeps only the answer it reads last (measured: the first input's), and
 * llama.cpp's OpenAI formatter numbers every answer index 0, so which input it is cannot be told. Here every input is its own request, all
 * posted before any is read: llama.cpp's server loop then packs the waiting inputs of up to
 * `parallel` slots into one batch, and each vector comes back on its own request id, in order.
 */
export function createWllamaEmbedder(options: WllamaEmbedderOptions): WllamaEmbedder {
  const parallel = options.parallel ?? engineDefaults.embeddingSlots;
  const defaultContextLength = options.contextLength ?? engineDefaults.embeddingContextLength;

  async function start(record: ModelRecord, planned: EngineInfo, contextLength: number) {
    const pooling = poolingOf(record);
    const blobs = await options.store.open(record.id);
    const log = new LogRing(200);
    // Its backend lines, kept whole for confirmBackend (the ring may drop them).
    const backend = new BackendRecord(log);
    const { wllama, info } = createWllamaFor(planned, options.wasmUrl, options.cpuBuild, {
      logger: backend.logger(),
      allowOffline: true,
    });
    await loadWllama(
      wllama,
      blobs.model,
      {
        embeddings: true,
        pooling_type: pooling,
        n_ctx: contextLength,
        // An encoder sees a whole input in one micro-batch: both batch sizes are the context.
        n_batch: contextLength,
        n_ubatch: contextLength,
        n_parallel: parallel,
        n_threads: info.threads,
        n_gpu_layers: info.gpuLayers,
      },
      { log, label: `embedding model ${record.id}`, info },
    );
    const proxy = wllamaProxy(wllama);
    return { wllama, proxy, log, info: confirmBackend(info, backend.lines()) };
  }

  async function loadRecord(record: ModelRecord, requested: number | undefined) {
    poolingOf(record);
    const trained = record.gguf.contextLength;
    const contextLength = Math.min(
      requested ?? trained ?? defaultContextLength,
      trained ?? Infinity,
    );
    const planned = await options.plannedInfo();
    let started;
    try {
      started = await start(record, planned, contextLength);
    } catch (error) {
      if (planned.backend !== 'webgpu') throw error;
      const reason = error instanceof Error ? error.message : String(error);
      const cpu = { ...planned, backend: 'wasm' as const, adapter: undefined, gpuLayers: 0 };
      started = await start(record, { ...cpu, fallbackReason: reason }, contextLength);
    }
    await options.store.touch(record.id);
    return {
      model: record.id,
      sizeBytes: record.sizeBytes,
      contextLength,
      slots: new SlotQueue(parallel),
      ...started,
    };
  }

  const residency = createResidency<LoadedEmbedder>({
    store: options.store,
    load: loadRecord,
    unload: (current) => current.wllama.exit(),
    keepAliveMs: options.keepAliveMs,
    clock: options.clock,
  });

  async function embed(request: EmbedRequest, embedOptions: GenerateOptions = {}) {
    const { signal } = embedOptions;
    const started = options.clock();
    // Refuse a chat model before the residency loads anything for it.
    const record = await options.store.get(request.model);
    if (record) assertCanEmbed(record);
    const { current, loadMs } = await residency.acquire(
      request.model,
      request.contextLength ?? requestContext(request.inputs, record?.gguf.contextLength),
      signal,
    );
    try {
      const answers = await embedAll(current, request, signal);
      return {
        embeddings: answers.map((a) => a.vector),
        promptTokens: answers.reduce((sum, a) => sum + a.tokens, 0),
        timings: { loadMs, totalMs: options.clock() - started },
      };
    } catch (error) {
      throw requestFailure(error, current, signal);
    } finally {
      residency.release(current);
    }
  }

  /**
   * Scores each document against the query with wllama's rerank call, which posts one llama.cpp
   * task per pair (llama.cpp formats it as the model's rerank template or query, separator,
   * document) and reads its score from the classifier head.
   */
  async function rerank(
    request: RerankRequest,
    rerankOptions: GenerateOptions = {},
  ): Promise<RerankResult> {
    const { signal } = rerankOptions;
    const started = options.clock();
    const record = await options.store.get(request.model);
    if (record) assertCanRerank(record);
    // The longest pair sizes the context, as the longest input does for embeddings.
    const pairs = request.documents.map((document) => `${request.query}  ${document}`);
    const { current, loadMs } = await residency.acquire(
      request.model,
      requestContext(pairs, record?.gguf.contextLength),
      signal,
    );
    const timings = () => ({ loadMs, totalMs: options.clock() - started });
    try {
      if (request.documents.length === 0)
        return { scores: [], promptTokens: 0, timings: timings() };
      signal?.throwIfAborted();
      const answer = await current.wllama.createRerank({
        query: request.query,
        documents: request.documents,
      });
      const scores = request.documents.map(() => Number.NaN);
      for (const result of answer.results) scores[result.index] = result.relevance_score;
      if (scores.some((score) => !Number.isFinite(score))) {
        throw new WllamaError(
          'The engine left a document without a finite score',
          'inference_error',
        );
      }
      return { scores, promptTokens: answer.usage.prompt_tokens, timings: timings() };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (signal?.aborted !== true && error instanceof WllamaError && isOverContext(message)) {
        throw new LmtabError(
          'invalid_request',
          `A query and document together are longer than ${current.model}'s context of ${current.contextLength.toLocaleString('en')} tokens (${message}); expected shorter documents.`,
          { param: 'documents', cause: error },
        );
      }
      throw requestFailure(error, current, signal);
    } finally {
      residency.release(current);
    }
  }

  /**
   * Posts the inputs and reads each answer in input order; an input over the context is cut and
   * re-posted. Each input holds one of the instance's parallel slots from its post to its answer:
   * wllama never answers a task posted while every slot is busy (a request with more inputs than
   * slots, or two requests together, hung), so posting waits for a free slot.
   */
  async function embedAll(
    current: LoadedEmbedder & ResidencyState,
    request: EmbedRequest,
    signal: AbortSignal | undefined,
  ): Promise<{ vector: Float32Array; tokens: number }[]> {
    const pending = new Set<number>();
    const held = new Set<() => void>();
    const post = async (input: EmbedInput): Promise<number> => {
      signal?.throwIfAborted();
      const answer = await current.proxy.wllamaAction('embedding', {
        _name: 'embd_req',
        data_json: JSON.stringify({ input, embd_normalize: 2 }),
        files: [],
      });
      if (answer.success !== true) {
        const reason =
          typeof answer.message === 'string' && answer.message ? `: ${answer.message}` : '';
        throw new WllamaError(`Model failed to start embedding${reason}`, 'inference_error');
      }
      const id = answer.req_id as number;
      pending.add(id);
      return id;
    };
    const posted = request.inputs.map(() => deferred<{ id: number; release: () => void }>());
    // Ends the poster when the reader is done or fails, also while it waits for a slot.
    const stopPosting = new AbortController();
    const posting = signal ? AbortSignal.any([signal, stopPosting.signal]) : stopPosting.signal;
    const poster = (async () => {
      for (let i = 0; i < request.inputs.length; i++) {
        const release = await current.slots.take(posting);
        held.add(release);
        posted[i]!.resolve({ id: await post(request.inputs[i]!), release });
      }
    })();
    // The reader sees a failed post where it waits for that input.
    poster.catch((error: unknown) => posted.forEach((p) => p.reject(error)));
    try {
      const results: { vector: Float32Array; tokens: number }[] = [];
      for (let i = 0; i < request.inputs.length; i++) {
        const { id, release } = await posted[i]!.promise;
        let input = request.inputs[i]!;
        let answer = await read(current.proxy, id, signal);
        pending.delete(id);
        for (let cut = 0; answer.error !== undefined; cut++) {
          if (!request.truncate || cut === maxTruncations || !isOverContext(answer.error)) {
            throw refusal(answer.error, current, i, request.truncate);
          }
          input = shorten(input, current.contextLength, answer.error);
          const again = await post(input);
          answer = await read(current.proxy, again, signal);
          pending.delete(again);
        }
        held.delete(release);
        release();
        results.push(answer.value);
      }
      return results;
    } finally {
      // The poster first, so that every posted task is known; then the unanswered ones are
      // cancelled, and only then are their slots free for other tasks.
      stopPosting.abort();
      await poster.catch(() => undefined);
      for (const id of pending) {
        await current.proxy
          .wllamaAction('cancel', { _name: 'cncl_req', req_id: id })
          .catch(() => undefined);
      }
      for (const release of held) release();
    }
  }

  return {
    embed,
    rerank,
    unload: (model?: string) => residency.unload(model),
    loaded: () => {
      const current = residency.resident();
      if (!current) return [];
      return [describeResident(current, parallel)];
    },
  };
}

type ReadAnswer =
  { value: { vector: Float32Array; tokens: number }; error?: undefined } | { error: string };

/** Reads one embedding request's answer from the worker, running llama.cpp's loop meanwhile. */
async function read(
  proxy: WllamaProxy,
  id: number,
  signal: AbortSignal | undefined,
): Promise<ReadAnswer> {
  let found: ReadAnswer | undefined;
  for (;;) {
    if (signal?.aborted === true) throw new WllamaAbortError();
    const chunk = await proxy.wllamaAction('get_result', { _name: 'gres_req', req_id: id });
    const data = typeof chunk.data_json === 'string' ? chunk.data_json : '';
    if (data !== '' && data !== 'null') {
      const value = JSON.parse(data) as EmbeddingAnswer;
      if (chunk.is_error === true) found = { error: value.message ?? 'Unknown embedding error' };
      else {
        const vector = value.data?.[0]?.embedding;
        if (!Array.isArray(vector)) {
          throw new WllamaError(
            'The engine answered an embedding without a vector',
            'inference_error',
          );
        }
        found = {
          value: { vector: Float32Array.from(vector), tokens: value.usage?.prompt_tokens ?? 0 },
        };
      }
    }
    if (chunk.has_more !== true) break;
  }
  if (found === undefined) {
    throw new WllamaError('The engine finished an embedding without an answer', 'inference_error');
  }
  return found;
}

/**
 * The error a failed embedding or rerank request throws: an abort, the request's own fault (an
 * input llama.cpp refused leaves the instance working), or the engine's, which marks the instance
 * broken so that the next request reloads it.
 */
function requestFailure(
  error: unknown,
  current: LoadedEmbedder & ResidencyState,
  signal: AbortSignal | undefined,
): LmtabError {
  if (error instanceof WllamaAbortError || signal?.aborted === true) {
    return new LmtabError('aborted', 'The request was aborted by the client.', { cause: error });
  }
  if (error instanceof LmtabError) return error;
  const failure = toLmtabError(error);
  if (failure.code !== 'engine_failure') return failure;
  current.broken = true;
  return new LmtabError(
    'engine_failure',
    `${failure.message}. Last engine log: ${current.log.tail(3)}`,
    { cause: error },
  );
}

/** How a stored model's vectors are pooled: `rank` for a reranker, else its embedding pooling. */
function poolingOf(record: ModelRecord): 'mean' | 'cls' | 'last' | 'rank' {
  return isReranker(record.gguf) ? 'rank' : assertCanEmbed(record);
}

/** llama.cpp's refusals of an input that does not fit the batch or the slot's context. */
function isOverContext(message: string): boolean {
  return /too large|exceeds the available context|context size/i.test(message);
}

/** The error for an input llama.cpp answered with an error (its own task failed, not the engine). */
function refusal(
  message: string,
  current: LoadedEmbedder,
  index: number,
  truncate: boolean,
): LmtabError {
  if (!isOverContext(message)) {
    // Token ids outside the vocabulary are the input's fault; anything else is the engine's.
    const code = /token/i.test(message) ? 'invalid_request' : 'engine_failure';
    return new LmtabError(code, `Embedding input ${index} failed: ${message}.`, {
      ...(code === 'invalid_request' ? { param: 'input' } : {}),
    });
  }
  const context = current.contextLength.toLocaleString('en');
  return new LmtabError(
    'invalid_request',
    truncate
      ? `Input ${index} could not be cut to fit ${current.model}'s context of ${context} tokens (${message}).`
      : `Input ${index} is longer than ${current.model}'s context of ${context} tokens (${message}); expected an input that fits, or truncate: true to cut it.`,
    { param: 'input' },
  );
}

/**
 * Cuts an input that is over the context: token ids to the context exactly; text in proportion to
 * the token count llama.cpp reported (or its UTF-8 bytes, a bound on the count), a little under,
 * since wllama 3.8.1 has no tokenizer call to cut at the exact token.
 */
/** The smallest context an embeddings request loads with (tokens). */
const minimumEmbedContext = 512;

/**
 * A context that holds the longest of `inputs`: a power of two from 512 up to the training context.
 * A text's UTF-8 length bounds its tokens (every token is at least a byte), plus the special tokens
 * around it. llama.cpp embeds an input in one batch, and the batch is the context: loading a model
 * trained for 32k tokens with its whole context made batches no browser could allocate.
 */
export function requestContext(inputs: readonly EmbedInput[], trained?: number): number {
  const longest = Math.max(
    0,
    ...inputs.map((input) =>
      typeof input === 'string' ? new TextEncoder().encode(input).length : input.length,
    ),
  );
  const wanted = Math.max(minimumEmbedContext, 2 ** Math.ceil(Math.log2(longest + 8)));
  return Math.min(wanted, trained ?? wanted);
}

function shorten(input: EmbedInput, contextLength: number, message: string): EmbedInput {
  if (typeof input !== 'string') return input.slice(0, Math.min(input.length - 1, contextLength));
  const reported = /(\d+) tokens?\)?/.exec(message);
  const tokens = reported
    ? Number(reported[1])
    : Math.max(new TextEncoder().encode(input).length, contextLength + 1);
  const characters = Array.from(input);
  const keep = Math.floor((characters.length * (contextLength * 0.95 - 2)) / Math.max(tokens, 1));
  return characters.slice(0, Math.max(1, Math.min(keep, characters.length - 1))).join('');
}

/** A promise with its resolve and reject, settled later by another flow. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Settled but never awaited when the reader stops early: not an unhandled rejection.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}
