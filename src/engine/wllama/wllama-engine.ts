import {
  WllamaAbortError,
  WllamaRuntimeError,
  type LoadedContextInfo,
  type TranscriptionChunk,
  type TranscriptionParams,
  type Wllama,
} from '@wllama/wllama/esm/index.js';
import { LmtabError, toLmtabError } from '../../errors/index.js';
import { readGgufHeader } from '../../store/index.js';
import type { ModelBlobs, ModelRecord, ModelStore } from '../../store/index.js';
import { probeCapabilities, type Capabilities } from '../gpu/capability-probe.js';
import type {
  ChatMessage,
  Engine,
  EngineInfo,
  EngineSettings,
  FinishReason,
  GenerateEvent,
  GenerateOptions,
  GenerateInput,
  GenerateRequest,
  DetokenizeRequest,
  SpeakRequest,
  SpeechChunk,
  TranscribeEvent,
  TranscribeRequest,
  LoadedModel,
  LoadOptions,
  TokenizeRequest,
  TokenizeResult,
  Usage,
} from '../engine.js';
import {
  assertAnswerLimit,
  assertContextLength,
  contextExceeded,
  PromptOverContext,
  promptTokensOf,
  raisedContext,
} from '../memory/context-limits.js';
import { buildNames, createWllamaFor, kernelsFromLog, type CpuBuild } from '../builds/cpu-build.js';
import {
  headLengths,
  kvCacheFromLog,
  kvCacheParams,
  type HeadLengths,
} from '../builds/kv-cache.js';
import { buffersFromLog } from '../memory/engine-buffers.js';
import { prepareImage } from './image-input.js';
import { loadWllama } from './load-wllama.js';
import { chooseBuild } from '../builds/choose-build.js';
import { memory64Resources, memory64Supported } from '../builds/memory64-build.js';
import { LogRing } from '../log-ring.js';
import { BackendRecord } from '../gpu/backend-record.js';
import { gpuDeviceLostError, loseGpuDevice } from '../gpu/gpu-loss.js';
import { watchGpu } from '../gpu/gpu-worker-prologue.js';
import { createWllamaEmbedder } from './wllama-embed.js';
import { wllamaRawCompletion } from './wllama-raw-completion.js';
import { confirmBackend, planBackend } from '../gpu/plan-backend.js';
import { createResidency, type ResidencyState } from '../residency.js';
import { SlotQueue } from '../slot-queue.js';
import {
  continuationTokens,
  partialCharacterTokens,
  unsafeByteTokens,
  VALID_UTF8_GRAMMAR,
} from './utf8-guard.js';
import { ForcedToolCallReader } from './forced-tool-call.js';
import { chunkEvents, type WllamaChunk } from './wllama-chunk-events.js';
import {
  findToolCallStart,
  findUnusedThinkStart,
  forcesToolCall,
  wllamaParams,
} from './wllama-params.js';
import { countPromptTokens } from '../count-prompt-tokens.js';
import { glueBytes, wllamaTokenAction } from './wllama-token-actions.js';
import { loadVocabTokenizer } from './vocab-tokenizer.js';
import { cannotHear, cannotSpeak, createFloatToPcm16 } from '../audio-model.js';
import { engineDefaults } from '../engine-defaults.js';

/** Options of {@link createWllamaEngine}. */
export interface WllamaEngineOptions {
  /** Where models are read from. */
  store: Pick<ModelStore, 'get' | 'open' | 'touch'>;
  /** URL of wllama's `wllama.wasm`. */
  wasmUrl: string;
  /** lmtab's CPU build, used for loads without WebGPU; without it wllama's stock build runs them. */
  cpuBuild?: CpuBuild;
  /**
   * lmtab's CPU build for the token routes (`/tokenize`, ...) of models that run on another build:
   * it loads their vocabulary only (`vocab-tokenizer.ts`). Default {@link cpuBuild}; without either,
   * those routes answer 501 for such models.
   */
  tokenizerBuild?: CpuBuild;
  /**
   * wllama's stock emscripten glue (its `src/wasm/wllama.js`): with it, a CPU load past what the
   * wasm32 build holds runs on the stock build with its memory raised (`memory64-build.ts`).
   */
  stockGlueCode?: string;
  /** Layers to offload to WebGPU; default all of them when an adapter exists. 0 = CPU only. */
  gpuLayers?: number;
  /** WebAssembly threads; default every core the page may use (1 without cross-origin isolation). */
  threads?: number;
  /** Context length in tokens shared by all slots; default {@link engineDefaults.contextLength} (4096). */
  contextLength?: number;
  /** KV cache type (see {@link EngineSettings.kvCache}); default `auto`. */
  kvCache?: EngineSettings['kvCache'];
  /** Parallel slots, i.e. requests decoded together in one batch; default {@link engineDefaults.parallelSlots} (4). */
  parallel?: number;
  /** Milliseconds an idle model stays loaded; default {@link engineDefaults.keepAliveMs} (5 minutes). */
  keepAliveMs?: number;
  /** Clock in epoch milliseconds; default `Date.now`. */
  clock?: () => number;
  /** Capability probe; default {@link probeCapabilities}. */
  probe?: () => Promise<Capabilities>;
}

/** The wllama engine, with a test hook besides the {@link Engine} interface. */
export interface WllamaEngine extends Engine {
  /** Test hook: loses the resident model's GPU device (see `loseGpuDevice` in `gpu-loss.ts`). */
  loseGpuDevice(): Promise<'destroyed' | 'simulated' | 'no model'>;
}

interface LoadedWllama {
  model: string;
  wllama: Wllama;
  sizeBytes: number;
  contextLength: number;
  info: EngineInfo;
  /** The engine's last log lines, quoted in load and generation failures. */
  log: LogRing;
  /** Its backend lines, kept whole, and whether its GPU device was lost. */
  backend: BackendRecord;
  /** Whether lmtab's GPU watch runs in its worker (`gpu-worker-prologue.ts`). */
  gpuWatched: boolean;
  /** Token ids that would make the output malformed UTF-8 (see utf8-guard.ts). */
  unsafeTokens: number[];
  /** Id of the token that opens a tool call in the model's chat format, if it has one. */
  toolCallStart: number | undefined;
  /** Id of `<think>` when the model's template does not think (banned in chats). */
  unusedThinkStart: number | undefined;
  /** Tokens starting mid-character, banned when logprobs are asked for (see utf8-guard.ts). */
  continuationTokens: number[];
  /** Parallel slots: a request beyond them waits here, as wllama would never answer it. */
  slots: SlotQueue;
  /** The model's files, for a vocabulary-only tokenizer beside a load on another build. */
  files: Blob[];
  /** That tokenizer (`vocab-tokenizer.ts`), started by the first token request; ended with the model. */
  tokenizer?: Promise<Wllama>;
}

type Resident = LoadedWllama & ResidencyState;

/** A WebGPU plan moved to the CPU, saying why. */
function onCpu(planned: EngineInfo, reason: string): EngineInfo {
  return { ...planned, backend: 'wasm', adapter: undefined, gpuLayers: 0, fallbackReason: reason };
}

/** Token counts of a finished answer: the whole prompt, and how much of it came from the cache. */
function chunkUsage(last: WllamaChunk, pieces: number): Usage {
  const { usage, timings } = last;
  const cached = timings?.cache_n ?? usage?.prompt_tokens_details?.cached_tokens;
  return {
    promptTokens: timings ? timings.prompt_n + (timings.cache_n ?? 0) : (usage?.prompt_tokens ?? 0),
    ...(cached === undefined ? {} : { cachedPromptTokens: cached }),
    completionTokens: usage?.completion_tokens ?? timings?.predicted_n ?? pieces,
  };
}

/** Chat messages in llama-server's OpenAI shape, tool calls and tool answers included. */
async function wllamaMessages(messages: ChatMessage[]) {
  let imageIndex = 0;
  return Promise.all(
    messages.map(async (message) => {
      const extra: Record<string, unknown> = {};
      if (message.toolCalls !== undefined && message.toolCalls.length > 0) {
        extra.tool_calls = message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        }));
      }
      if (message.reasoning !== undefined) extra.reasoning_content = message.reasoning;
      if (message.toolCallId !== undefined) extra.tool_call_id = message.toolCallId;
      if (message.toolName !== undefined) extra.name = message.toolName;
      const onlyText = message.content.every((p) => p.type === 'text');
      if (onlyText) {
        return {
          role: message.role,
          content: message.content.map((p) => (p.type === 'text' ? p.text : '')).join(''),
          ...extra,
        };
      }
      const content = await Promise.all(
        message.content.map(async (part) => {
          if (part.type === 'text') return { type: 'text' as const, text: part.text };
          if (part.type === 'audio') {
            return { type: 'audio' as const, data: part.data.slice().buffer as ArrayBuffer };
          }
          return { type: 'image' as const, data: await prepareImage(part, imageIndex++) };
        }),
      );
      return { role: message.role, content, ...extra };
    }),
  );
}

/**
 * What a loaded model takes and gives besides text, as llama.cpp says once it has read the
 * projector; undefined for a model without one.
 */
function mediaOf(wllama: Wllama): EngineInfo['media'] {
  const context = wllama.getLoadedContextInfo() as Partial<LoadedContextInfo>;
  const media = {
    images: wllama.supportInputModality('image'),
    audioInput: context.has_audio_input === true,
    audioOutput: context.has_audio_output === true,
    realtime: context.has_audio_stream === true,
  };
  return Object.values(media).some(Boolean) ? media : undefined;
}

/** A tool call id in OpenAI's style (`call_` and 24 hex digits). */
function callId(): string {
  // getRandomValues, unlike randomUUID, also works on plain-http LAN origins (no secure context).
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return 'call_' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The engine's own words for a failed request: wllama reports a refused request body only as
 * "Invalid typed array length" (it reads an error result as a buffer), while llama.cpp logged
 * why; the last error line of the log is that reason.
 */
function engineReason(message: string, log: LogRing): string {
  if (!message.includes('Invalid typed array length')) return message;
  const line = log
    .lines()
    .reverse()
    .find((l) => /error|exception|failed|invalid/i.test(l) && !l.includes('Invalid typed array'));
  return line === undefined ? message : line.replace(/^\s*\S*(error|ERR)\S*:?\s*/i, '').trim();
}

/**
 * The wllama backend: llama.cpp's server loop compiled to WebAssembly, on WebGPU when an adapter
 * exists and on CPU threads otherwise. One model is resident at a time; requests for it share its
 * parallel slots, and a request for another model waits for the resident one to drain.
 */
export function createWllamaEngine(options: WllamaEngineOptions): WllamaEngine {
  const clock = options.clock ?? Date.now;
  const probe = options.probe ?? probeCapabilities;
  const keepAliveMs = options.keepAliveMs ?? engineDefaults.keepAliveMs;
  const parallel = options.parallel ?? engineDefaults.parallelSlots;
  let capabilities: Promise<Capabilities> | undefined;
  let lastGpuLoss: EngineInfo['gpuLost'];

  const capabilitiesOnce = () => (capabilities ??= probe());

  /**
   * A wllama instance's GPU device is gone: the next load asks for an adapter again (WebGPU if one
   * comes back, the CPU otherwise), and the resident model on it is ended at once, so that requests
   * on it fail now rather than when llama.cpp next waits on the GPU.
   */
  function gpuLost(backend: BackendRecord, line: string): void {
    lastGpuLoss = { at: clock(), line };
    capabilities = undefined;
    const current = residency.resident();
    if (current?.backend !== backend) return;
    current.broken = true;
    if (current.active > 0) void current.wllama.exit().catch(() => undefined);
    else void residency.unload(current.model).catch(() => undefined);
  }

  async function plannedInfo(): Promise<EngineInfo> {
    return planBackend(await capabilitiesOnce(), options, 'wllama');
  }

  async function start(
    record: ModelRecord,
    blobs: ModelBlobs,
    planned: EngineInfo,
    contextLength: number,
    heads: HeadLengths | undefined,
  ) {
    const log = new LogRing(200);
    const backend: BackendRecord = new BackendRecord(log, {
      onGpuLost: (line) => gpuLost(backend, line),
    });
    const memory64 =
      planned.build === buildNames.memory64 && options.stockGlueCode !== undefined
        ? await memory64Resources(
            options.wasmUrl,
            options.stockGlueCode,
            options.cpuBuild?.memory64KernelsUrl,
          )
        : undefined;
    const config = { logger: backend.logger(), allowOffline: true };
    const { wllama, info } = createWllamaFor(
      planned,
      options.wasmUrl,
      planned.build === buildNames.stock ? undefined : options.cpuBuild,
      config,
      memory64,
    );
    const gpuWatched =
      info.backend === 'webgpu' &&
      info.build === buildNames.stock &&
      options.stockGlueCode !== undefined &&
      watchGpu(wllama, options.wasmUrl, options.stockGlueCode);
    await loadWllama(
      wllama,
      blobs.projector ? [...blobs.model, blobs.projector] : blobs.model,
      {
        n_ctx: contextLength,
        n_parallel: parallel,
        n_threads: info.threads,
        n_gpu_layers: info.gpuLayers,
        ...kvCacheParams(info, heads, options.kvCache),
      },
      { log, label: record.id, info },
    );
    const kvCache = kvCacheFromLog(log.lines());
    const kernels = kernelsFromLog(log.lines());
    const buffers = buffersFromLog(log.lines());
    return {
      wllama,
      log,
      backend,
      gpuWatched,
      info: {
        ...confirmBackend(info, backend.lines()),
        ...(kvCache && { kvCache }),
        ...(kernels && { kernels }),
        ...(buffers && { buffers }),
      },
    };
  }

  async function loadRecord(record: ModelRecord, contextLength: number): Promise<LoadedWllama> {
    const planned = await plannedInfo();
    // Read once: a WebGPU refusal loads the same files again on the CPU.
    const blobs = await options.store.open(record.id);
    const { metadata } = await readGgufHeader(blobs.model[0]!);
    const heads = headLengths(metadata);
    const projector = blobs.projector
      ? (await readGgufHeader(blobs.projector)).metadata
      : undefined;
    // The CPU build that holds a CPU load, or a refusal with the sizes before the engine starts.
    const onCpuBuild = (info: EngineInfo): EngineInfo => {
      const { build, reason } = chooseBuild({
        backend: 'wasm',
        label: record.id,
        fileBytes: (blobs.projector ? [...blobs.model, blobs.projector] : blobs.model).map(
          (f) => f.size,
        ),
        metadata,
        projector,
        contextLength,
        heads,
        kvCache: options.kvCache,
        device: {
          lmtabBuild: options.cpuBuild !== undefined,
          memory64: options.stockGlueCode !== undefined && memory64Supported(),
        },
      });
      return { ...info, build, ...(reason !== undefined && { buildReason: reason }) };
    };
    const plan = planned.backend === 'wasm' ? onCpuBuild(planned) : planned;
    let started;
    try {
      started = await start(record, blobs, plan, contextLength, heads);
    } catch (error) {
      if (plan.backend !== 'webgpu') throw error;
      // llama.cpp's WebGPU backend refuses some adapters (no shader-f16, small limits): use the CPU.
      const fallback = onCpu(plan, error instanceof Error ? error.message : String(error));
      started = await start(record, blobs, onCpuBuild(fallback), contextLength, heads);
    }
    await options.store.touch(record.id);
    const media = mediaOf(started.wllama);
    if (media !== undefined) started.info = { ...started.info, media };
    const contextReason = contextReasons.get(record.id);
    if (contextReason !== undefined) {
      started.log.push(`lmtab: ${record.id} loads with ${contextReason}`);
      started.info = { ...started.info, contextReason };
    }
    return {
      model: record.id,
      wllama: started.wllama,
      log: started.log,
      backend: started.backend,
      gpuWatched: started.gpuWatched,
      unsafeTokens: unsafeByteTokens(metadata),
      toolCallStart: findToolCallStart(metadata.get('tokenizer.ggml.tokens')),
      unusedThinkStart: findUnusedThinkStart(
        metadata.get('tokenizer.ggml.tokens'),
        String(metadata.get('tokenizer.chat_template') ?? ''),
      ),
      // wllama's stock build cannot serialize any partial character as a logprob alternative.
      continuationTokens:
        started.info.build === buildNames.cpu
          ? continuationTokens(metadata)
          : partialCharacterTokens(metadata),
      info: started.info,
      sizeBytes: record.sizeBytes,
      contextLength,
      slots: new SlotQueue(parallel),
      files: blobs.model,
    };
  }

  const defaultContextLength = options.contextLength ?? engineDefaults.contextLength;
  const residency = createResidency<LoadedWllama>({
    store: options.store,
    load: (record, contextLength) => loadRecord(record, contextLength ?? defaultContextLength),
    unload: async (current) => {
      const tokenizer = current.tokenizer?.catch(() => undefined);
      await current.wllama.exit();
      await (await tokenizer)?.exit();
    },
    defaultContextLength,
    keepAliveMs,
    clock,
  });

  /** Why a model is about to load with a longer context than asked, by model id. */
  const contextReasons = new Map<string, string>();

  /**
   * Answers a request; a prompt that does not fit the loaded context (and names no context length
   * itself) reloads the model with a longer one, up to its training context, and runs again.
   */
  async function* generate(
    request: GenerateRequest,
    generateOptions: GenerateOptions = {},
  ): AsyncGenerator<GenerateEvent> {
    try {
      yield* attempt(request, generateOptions);
    } catch (error) {
      if (!(error instanceof PromptOverContext)) throw error;
      if (request.contextLength !== undefined) throw error.failure;
      const record = await options.store.get(request.model);
      const { promptTokens, loaded } = error;
      const raised = raisedContext(
        promptTokens,
        loaded,
        request.sampling.maxTokens,
        record?.gguf.contextLength,
      );
      if (raised === undefined) throw error.failure;
      const reason = `raised from ${loaded.toLocaleString('en')} to ${raised.toLocaleString('en')} tokens of context for a prompt of ${promptTokens.toLocaleString('en')} tokens`;
      contextReasons.set(request.model, reason);
      try {
        yield* attempt({ ...request, contextLength: raised }, generateOptions);
      } catch (reload) {
        if (!(reload instanceof LmtabError) || reload.code !== 'model_too_large') throw reload;
        throw new LmtabError(
          'context_length_exceeded',
          `The prompt is ${promptTokens.toLocaleString('en')} tokens, more than the ${loaded.toLocaleString('en')} tokens of context ${request.model} was loaded with, and a reload with ${raised.toLocaleString('en')} tokens does not fit this device: ${reload.message} Shorten the conversation, or set a context length this device holds (num_ctx, or Developer -> Load settings).`,
          { param: 'messages', cause: reload },
        );
      } finally {
        contextReasons.delete(request.model);
      }
    }
  }

  async function* attempt(
    request: GenerateRequest,
    generateOptions: GenerateOptions,
  ): AsyncGenerator<GenerateEvent> {
    const { signal } = generateOptions;
    const started = clock();
    await assertContextFits(request);
    const { current, loadMs } = await residency.acquire(
      request.model,
      request.contextLength,
      signal,
    );
    let releaseSlot: (() => void) | undefined;
    let tokens = 0;
    try {
      assertAnswerLimit(current.model, request.sampling.maxTokens, current.contextLength);
      assertMedia(current, request.input);
      releaseSlot = await current.slots.take(signal);
      const input = request.input;
      // max_tokens is a ceiling: past the loaded context the answer ends with `length` anyway.
      const { maxTokens } = request.sampling;
      const ceiling =
        maxTokens === undefined ? undefined : Math.min(maxTokens, current.contextLength);
      const params = wllamaParams(
        { ...request, sampling: { ...request.sampling, maxTokens: ceiling } },
        current,
      );
      const stream = (
        input.kind === 'chat'
          ? await current.wllama.createChatCompletion({
              ...params,
              stream: true as const,
              abortSignal: signal,
              messages: (await wllamaMessages(input.messages)) as never,
            })
          : wllamaRawCompletion(current.wllama, { ...params, prompt: input.prompt }, { signal })
      ) as AsyncIterable<WllamaChunk>;
      let finishReason: FinishReason = 'stop';
      let stopSequence: string | undefined;
      let last: WllamaChunk = {};
      const topLogprobs = request.logprobs?.top;
      const calls = new Set<number>();
      const forced = forcesToolCall(request) ? new ForcedToolCallReader(callId()) : undefined;
      for await (const chunk of stream) {
        for (const event of chunkEvents(chunk, { topLogprobs })) {
          if (event.type === 'token' && event.text !== '') tokens += 1;
          if (forced !== undefined && event.type === 'token') {
            yield* forced.push(event.text);
            continue;
          }
          // The first piece of a call names it; llama.cpp leaves the id out for some formats.
          if (event.type === 'tool_call' && !calls.has(event.index)) {
            calls.add(event.index);
            event.id ??= callId();
          }
          yield event;
        }
        const reason = chunk.choices?.[0]?.finish_reason;
        if (reason === 'length' || reason === 'tool_calls') finishReason = reason;
        if (chunk.__verbose?.stop_type === 'word' && chunk.__verbose.stopping_word) {
          stopSequence = chunk.__verbose.stopping_word;
        }
        if (chunk.timings || chunk.usage) last = { ...last, ...chunk };
      }
      signal?.throwIfAborted();
      const timings = last.timings;
      yield {
        type: 'done',
        finishReason,
        ...(finishReason === 'stop' && stopSequence !== undefined ? { stopSequence } : {}),
        usage: chunkUsage(last, tokens),
        timings: {
          loadMs,
          promptMs: timings?.prompt_ms ?? 0,
          decodeMs: timings?.predicted_ms ?? 0,
          totalMs: clock() - started,
        },
      };
    } catch (error) {
      const failure = requestFailure(current, error, signal);
      if (failure.code !== 'engine_failure') throw failure;
      if (/exceeds the available context size/.test(failure.message)) {
        const exceeded = contextExceeded(
          current.model,
          current.contextLength,
          failure.message,
          error,
        );
        const promptTokens = promptTokensOf(failure.message);
        // Refused before any token of the answer: generate() may reload with a longer context.
        if (tokens === 0 && promptTokens !== undefined) {
          throw new PromptOverContext(promptTokens, current.contextLength, exceeded);
        }
        throw exceeded;
      }
      if (/Context size has been exceeded/.test(failure.message)) {
        throw new LmtabError(
          'invalid_request',
          `The context is full: ${current.model} is loaded with ${current.contextLength.toLocaleString('en')} tokens of context, shared by its ${parallel} parallel slots, and this answer (with any others in progress) needed more. Ask for fewer tokens (max_tokens, num_predict), or load the model with a longer context (num_ctx, or Developer -> Load settings).`,
          { param: 'max_tokens', cause: error },
        );
      }
      throw engineFailure(current, failure, error);
    } finally {
      releaseSlot?.();
      residency.release(current);
    }
  }

  /**
   * What a failed request on a resident model becomes, before a request reads its own causes in it:
   * an abort, a lost GPU device, or the engine's error (its instance marked broken when wllama
   * rejected every pending task, so the next request gets a fresh one).
   */
  function requestFailure(current: Resident, error: unknown, signal?: AbortSignal): LmtabError {
    if (error instanceof WllamaAbortError || signal?.aborted) {
      return new LmtabError('aborted', 'The request was aborted by the client.', { cause: error });
    }
    if (error instanceof WllamaRuntimeError) current.broken = true;
    const lost = current.backend.gpuLoss();
    if (lost !== undefined) return gpuDeviceLostError(current, lost, error);
    return toLmtabError(error);
  }

  /** An engine failure in llama.cpp's own words, with the last lines of its log. */
  function engineFailure(current: Resident, failure: LmtabError, error: unknown): LmtabError {
    if (failure.code !== 'engine_failure') return failure;
    return new LmtabError(
      'engine_failure',
      `${engineReason(failure.message, current.log)}. Last engine log: ${current.log.tail(3)}`,
      { cause: error },
    );
  }

  /**
   * The media a request sends, against what the resident model reads (llama.cpp's own answer from
   * its projector): audio to a model that does not hear, or images to one that does not see, is a
   * 400 that says why, before anything runs.
   */
  function assertMedia(current: Resident, input: GenerateInput): void {
    if (input.kind !== 'chat') return;
    const parts = input.messages.flatMap((message) => message.content);
    const { wllama, model } = current;
    if (parts.some((part) => part.type === 'audio') && !wllama.supportInputModality('audio')) {
      throw cannotHear(model, hearingReason(current));
    }
    const images = parts.filter((part) => part.type === 'image').length;
    if (images > 0 && !wllama.supportInputModality('image')) {
      throw new LmtabError(
        'invalid_request',
        `Model "${model}" cannot read images: its projector (mmproj) has an audio encoder and no vision encoder, and the request has ${images} ${images === 1 ? 'image' : 'images'}. Send audio or text, or use a model with a vision projector.`,
        { param: 'messages' },
      );
    }
  }

  /** Why a resident model does not hear. */
  function hearingReason(current: Resident): string {
    return current.wllama.supportInputModality('image')
      ? 'its projector (mmproj) has a vision encoder and no audio encoder'
      : 'it has no projector (mmproj)';
  }

  /** Runs `use` on a model's instance with one of its slots, turning its failures into lmtab's. */
  async function* withSlot<T>(
    model: string,
    signal: AbortSignal | undefined,
    use: (current: Resident, loadMs: number) => AsyncGenerator<T>,
  ): AsyncGenerator<T> {
    const { current, loadMs } = await residency.acquire(model, undefined, signal);
    let releaseSlot: (() => void) | undefined;
    try {
      releaseSlot = await current.slots.take(signal);
      yield* use(current, loadMs);
      signal?.throwIfAborted();
    } catch (error) {
      throw engineFailure(current, requestFailure(current, error, signal), error);
    } finally {
      releaseSlot?.();
      residency.release(current);
    }
  }

  /** OpenAI's transcription through llama-server's own (wllama's `createTranscription`). */
  async function* transcribe(
    request: TranscribeRequest,
    transcribeOptions: GenerateOptions = {},
  ): AsyncGenerator<TranscribeEvent> {
    const { signal } = transcribeOptions;
    const started = clock();
    yield* withSlot(request.model, signal, async function* (current, loadMs) {
      if (!current.wllama.supportInputModality('audio')) {
        throw cannotHear(current.model, hearingReason(current));
      }
      const stream = (await current.wllama.createTranscription({
        file: request.audio.slice().buffer as ArrayBuffer,
        stream: true,
        abortSignal: signal,
        ...(request.language !== undefined && { language: request.language }),
        ...(request.prompt !== undefined && { prompt: request.prompt }),
        ...(request.temperature !== undefined && { temperature: request.temperature }),
        max_tokens: Math.min(request.maxTokens ?? current.contextLength, current.contextLength),
        // As in chats (utf8-guard.ts): the transcript stays valid UTF-8, which wllama's JSON needs.
        logit_bias: current.unsafeTokens.map((id) => [id, false]),
        grammar: VALID_UTF8_GRAMMAR,
      } as TranscriptionParams & { stream: true })) as AsyncIterable<TranscriptionChunk>;
      for await (const chunk of stream) {
        if (chunk.type === 'transcript.text.delta') {
          if (chunk.delta !== '') yield { type: 'delta', text: chunk.delta };
          continue;
        }
        yield {
          type: 'done',
          text: chunk.text,
          usage: {
            inputTokens: chunk.usage?.input_tokens ?? 0,
            outputTokens: chunk.usage?.output_tokens ?? 0,
          },
          timings: { loadMs, totalMs: clock() - started },
        };
      }
    });
  }

  /** OpenAI's speech through llama-server's own (wllama's `createSpeech`), streamed. */
  async function* speak(
    request: SpeakRequest,
    speakOptions: GenerateOptions = {},
  ): AsyncGenerator<SpeechChunk> {
    const { signal } = speakOptions;
    yield* withSlot(request.model, signal, async function* (current) {
      const context = current.wllama.getLoadedContextInfo();
      if (!context.has_audio_output) {
        throw cannotSpeak(
          current.model,
          current.wllama.supportInputModality('audio')
            ? 'its projector (mmproj) hears audio but has no audio generator'
            : 'it has no audio generator (no projector with one)',
        );
      }
      if (request.voice !== undefined && !context.audio_voices.includes(request.voice)) {
        throw new LmtabError(
          'invalid_request',
          `voice: expected one of ${current.model}'s voices (${context.audio_voices.map((v) => `"${v}"`).join(', ') || 'none'}), received "${request.voice}".`,
          { param: 'voice' },
        );
      }
      const chunks = await current.wllama.createSpeech({
        input: request.input,
        response_format: request.format,
        stream: true,
        abortSignal: signal,
        ...(request.voice !== undefined && { voice: request.voice }),
      });
      // llama.cpp's raw output is 32-bit float; OpenAI's `pcm` (and the Realtime API's) is 16-bit.
      const toPcm16 = request.format === 'pcm' ? createFloatToPcm16() : undefined;
      for await (const chunk of chunks) {
        const audio = new Uint8Array(chunk.audio);
        yield {
          audio: toPcm16 === undefined ? audio : toPcm16(audio),
          sampleRate: chunk.sample_rate,
          final: chunk.final,
        };
      }
    });
  }

  const embedder = createWllamaEmbedder({
    store: options.store,
    wasmUrl: options.wasmUrl,
    cpuBuild: options.cpuBuild,
    plannedInfo,
    keepAliveMs,
    clock,
  });

  /** A context longer than the model was trained for (or than memory holds) is refused up front. */
  async function assertContextFits(request: GenerateRequest): Promise<void> {
    const wanted = request.contextLength;
    if (wanted === undefined) return;
    const record = await options.store.get(request.model).catch(() => undefined);
    assertContextLength(request.model, wanted, record?.gguf.contextLength);
  }

  /**
   * Runs `use` with the instance that answers a model's token actions, loading the model first: the
   * model's own instance on lmtab's CPU build, which has them (wasm/glue/token-actions.h); beside a
   * load on wllama's stock build (WebGPU, or memory64 past 4 GiB), which has none and aborts its
   * worker on an action it does not know, a vocabulary-only instance of the CPU build.
   */
  async function withTokenizer<T>(
    model: string,
    signal: AbortSignal | undefined,
    use: (tokenizer: Wllama, current: Resident) => Promise<T>,
  ): Promise<T> {
    const { current } = await residency.acquire(model, undefined, signal);
    try {
      return await use(await tokenizerOf(current), current);
    } catch (error) {
      if (error instanceof WllamaAbortError || signal?.aborted) {
        throw new LmtabError('aborted', 'The request was aborted by the client.', { cause: error });
      }
      // As in generate(): wllama rejected every pending task; the next request gets a fresh instance.
      if (error instanceof WllamaRuntimeError && current.info.build === buildNames.cpu) {
        current.broken = true;
      }
      throw toLmtabError(error);
    } finally {
      residency.release(current);
    }
  }

  function tokenizerOf(current: Resident): Promise<Wllama> {
    if (current.info.build === buildNames.cpu) return Promise.resolve(current.wllama);
    const build = options.tokenizerBuild ?? options.cpuBuild;
    if (build === undefined) {
      return Promise.reject(
        new LmtabError(
          'not_implemented',
          `Model "${current.model}" runs on ${current.info.build ?? 'wllama'}, which has no tokenizer call, and lmtab's CPU build (${buildNames.cpu}), which answers /tokenize, /detokenize and /apply-template, is not available here.`,
        ),
      );
    }
    const started = (current.tokenizer ??= loadVocabTokenizer(current.files, {
      wasmUrl: options.wasmUrl,
      build,
      label: current.model,
    }));
    // A failed start is tried again by the next request.
    started.catch(() => {
      if (current.tokenizer === started) current.tokenizer = undefined;
    });
    return started;
  }

  async function tokenize(
    request: TokenizeRequest,
    tokenizeOptions: GenerateOptions = {},
  ): Promise<TokenizeResult> {
    return withTokenizer(request.model, tokenizeOptions.signal, async (tokenizer) => {
      const answer = await wllamaTokenAction(tokenizer, 'tokenize', {
        content: request.content,
        add_special: request.addSpecial ?? false,
        parse_special: request.parseSpecial ?? true,
        with_pieces: request.withPieces ?? false,
      });
      const tokens = answer.tokens as number[];
      if (request.withPieces !== true) return { tokens };
      return { tokens, pieces: (answer.pieces as unknown[]).map(glueBytes) };
    });
  }

  async function detokenize(
    request: DetokenizeRequest,
    detokenizeOptions: GenerateOptions = {},
  ): Promise<Uint8Array> {
    return withTokenizer(request.model, detokenizeOptions.signal, async (tokenizer) => {
      const answer = await wllamaTokenAction(tokenizer, 'detokenize', {
        tokens: request.tokens,
      });
      return glueBytes(answer.content);
    });
  }

  /** The chat body generate() sends (the same params and messages), through the template only. */
  async function applyTemplate(
    request: GenerateRequest,
    templateOptions: GenerateOptions = {},
  ): Promise<string> {
    const { input } = request;
    if (input.kind !== 'chat') {
      throw new LmtabError(
        'invalid_request',
        'messages: expected a chat (messages) to apply the chat template to, received a raw prompt.',
        { param: 'messages' },
      );
    }
    return withTokenizer(request.model, templateOptions.signal, async (tokenizer, current) => {
      // wllama's own step before a chat: images become the media marker in the text.
      const media = tokenizer as unknown as {
        prepareMultimodalInput(params: { messages: unknown[] }): {
          params: { messages: unknown[] };
        };
      };
      const { messages } = media.prepareMultimodalInput({
        messages: await wllamaMessages(input.messages),
      }).params;
      const answer = await wllamaTokenAction(tokenizer, 'apply_template', {
        ...wllamaParams(request, current),
        messages,
      });
      return String(answer.prompt);
    });
  }

  return {
    generate,
    transcribe,
    speak,
    embed: embedder.embed,
    rerank: embedder.rerank,
    tokenize,
    detokenize,
    applyTemplate,
    countTokens: (request, countOptions) => countPromptTokens(generate, request, countOptions),
    load: async (model: string, loadOptions: LoadOptions = {}): Promise<LoadedModel> =>
      describe(await residency.load(model, loadOptions.contextLength, loadOptions.signal)),
    unload: async (model?: string) => {
      await Promise.all([residency.unload(model), embedder.unload(model)]);
    },
    loaded: () => {
      const current = residency.resident();
      return [...(current ? [describe(current)] : []), ...embedder.loaded()];
    },
    info: async () => ({
      ...(residency.resident()?.info ?? (await plannedInfo())),
      ...(lastGpuLoss && { gpuLost: lastGpuLoss }),
    }),
    supportsImages: (record) => !!record.projector,
    loseGpuDevice: async () => {
      const current = residency.resident();
      return current ? loseGpuDevice(current) : 'no model';
    },
  };

  function describe(current: Resident): LoadedModel {
    return {
      model: current.model,
      sizeBytes: current.sizeBytes,
      contextLength: current.contextLength,
      parallel,
      active: current.active,
      info: current.info,
      expiresAt: current.expiresAt,
    };
  }
}
