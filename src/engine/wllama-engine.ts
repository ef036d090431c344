import { WllamaAbortError, WllamaRuntimeError, type Wllama } from '@wllama/wllama/esm/index.js';
import { LmtabError, toLmtabError } from '../errors/index.js';
import { readGgufHeader } from '../store/gguf-header.js';
import type { ModelBlobs, ModelRecord, ModelStore } from '../store/index.js';
import { probeCapabilities, type Capabilities } from './capability-probe.js';
import type {
  ChatMessage,
  Engine,
  EngineInfo,
  FinishReason,
  GenerateEvent,
  GenerateOptions,
  GenerateRequest,
  LoadedModel,
  LoadOptions,
  SamplingOptions,
  Usage,
} from './engine.js';
import { createWllamaFor, type CpuBuild } from './cpu-build.js';
import { prepareImage } from './image-input.js';
import { LogRing } from './log-ring.js';
import { wllamaRawCompletion } from './wllama-raw-completion.js';
import { confirmBackend, planBackend } from './plan-backend.js';
import { createResidency, type ResidencyState } from './residency.js';
import { SlotQueue } from './slot-queue.js';
import { unsafeByteTokens, VALID_UTF8_GRAMMAR } from './utf8-guard.js';

/** Options of {@link createWllamaEngine}. */
export interface WllamaEngineOptions {
  /** Where models are read from. */
  store: Pick<ModelStore, 'get' | 'open' | 'touch'>;
  /** URL of wllama's `wllama.wasm`. */
  wasmUrl: string;
  /** lmtab's CPU build, used for loads without WebGPU; without it wllama's stock build runs them. */
  cpuBuild?: CpuBuild;
  /** Layers to offload to WebGPU; default all of them when an adapter exists. 0 = CPU only. */
  gpuLayers?: number;
  /** WebAssembly threads; default every core the page may use (1 without cross-origin isolation). */
  threads?: number;
  /** Context length in tokens shared by all slots; default 4096. */
  contextLength?: number;
  /** Parallel slots, i.e. requests decoded together in one batch; default 4. */
  parallel?: number;
  /** Milliseconds an idle model stays loaded; default 5 minutes. */
  keepAliveMs?: number;
  /** Clock in epoch milliseconds; default `Date.now`. */
  clock?: () => number;
  /** Capability probe; default {@link probeCapabilities}. */
  probe?: () => Promise<Capabilities>;
}

interface LoadedWllama {
  model: string;
  wllama: Wllama;
  sizeBytes: number;
  contextLength: number;
  info: EngineInfo;
  /** The engine's last log lines, quoted in load and generation failures. */
  log: LogRing;
  /** Token ids that would make the output malformed UTF-8 (see utf8-guard.ts). */
  unsafeTokens: number[];
  /** Parallel slots: a request beyond them waits here, as wllama would never answer it. */
  slots: SlotQueue;
}

type Resident = LoadedWllama & ResidencyState;

/** What llama.cpp's chunks carry that lmtab reads (wllama's types lag the server's JSON). */
interface WllamaChunk {
  choices?: Array<{
    delta?: { content?: string | null };
    text?: string;
    finish_reason?: string | null;
  }>;
  usage?: {
    prompt_tokens: number;
    completion_tokens: number;
    prompt_tokens_details?: { cached_tokens?: number };
  } | null;
  timings?: {
    /** Prompt tokens reused from the slot's cache; `prompt_n` counts only those processed. */
    cache_n?: number;
    prompt_n: number;
    prompt_ms: number;
    predicted_n: number;
    predicted_ms: number;
  };
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

/** llama-server's sampling fields, as wllama forwards them. */
function samplingParams(
  sampling: SamplingOptions,
  unsafeTokens: number[],
): Record<string, unknown> {
  const params: Record<string, unknown> = {
    temperature: sampling.temperature,
    top_p: sampling.topP,
    top_k: sampling.topK,
    min_p: sampling.minP,
    repeat_penalty: sampling.repeatPenalty,
    frequency_penalty: sampling.frequencyPenalty,
    presence_penalty: sampling.presencePenalty,
    seed: sampling.seed,
    stop: sampling.stop,
    max_tokens: sampling.maxTokens,
    ignore_eos: sampling.ignoreEos,
    // Reuse the KV cache of the longest matching prefix: later chat turns skip re-processing.
    cache_prompt: true,
    grammar: VALID_UTF8_GRAMMAR,
    logit_bias: unsafeTokens.map((id) => [id, false]),
  };
  for (const key of Object.keys(params)) if (params[key] === undefined) delete params[key];
  return params;
}

async function wllamaMessages(messages: ChatMessage[]) {
  let imageIndex = 0;
  return Promise.all(
    messages.map(async (message) => {
      const onlyText = message.content.every((p) => p.type === 'text');
      if (onlyText) {
        return {
          role: message.role,
          content: message.content.map((p) => (p.type === 'text' ? p.text : '')).join(''),
        };
      }
      const content = await Promise.all(
        message.content.map(async (part) =>
          part.type === 'text'
            ? { type: 'text' as const, text: part.text }
            : { type: 'image' as const, data: await prepareImage(part, imageIndex++) },
        ),
      );
      return { role: message.role, content };
    }),
  );
}

/**
 * The wllama backend: llama.cpp's server loop compiled to WebAssembly, on WebGPU when an adapter
 * exists and on CPU threads otherwise. One model is resident at a time; requests for it share its
 * parallel slots, and a request for another model waits for the resident one to drain.
 */
export function createWllamaEngine(options: WllamaEngineOptions): Engine {
  const clock = options.clock ?? Date.now;
  const probe = options.probe ?? probeCapabilities;
  const keepAliveMs = options.keepAliveMs ?? 5 * 60_000;
  const parallel = options.parallel ?? 4;
  let capabilities: Promise<Capabilities> | undefined;

  const capabilitiesOnce = () => (capabilities ??= probe());

  async function plannedInfo(): Promise<EngineInfo> {
    return planBackend(await capabilitiesOnce(), options, 'wllama');
  }

  async function start(
    record: ModelRecord,
    blobs: ModelBlobs,
    planned: EngineInfo,
    contextLength: number,
  ) {
    const log = new LogRing(200);
    const { wllama, info } = createWllamaFor(planned, options.wasmUrl, options.cpuBuild, {
      logger: log.logger(),
      allowOffline: true,
    });
    try {
      await wllama.loadModel(blobs.projector ? [...blobs.model, blobs.projector] : blobs.model, {
        n_ctx: contextLength,
        n_parallel: parallel,
        n_threads: info.threads,
        n_gpu_layers: info.gpuLayers,
      });
    } catch (error) {
      await wllama.exit().catch(() => undefined);
      throw new LmtabError(
        'engine_failure',
        `Loading ${record.id} on ${info.backend} failed: ${error instanceof Error ? error.message : String(error)}. Last engine log: ${log.tail(3)}`,
        { cause: error },
      );
    }
    return { wllama, log, info: confirmBackend(info, log.lines()) };
  }

  async function loadRecord(record: ModelRecord, contextLength: number): Promise<LoadedWllama> {
    const planned = await plannedInfo();
    // Read once: a WebGPU refusal loads the same files again on the CPU.
    const blobs = await options.store.open(record.id);
    const { metadata } = await readGgufHeader(blobs.model[0]!);
    let started;
    try {
      started = await start(record, blobs, planned, contextLength);
    } catch (error) {
      if (planned.backend !== 'webgpu') throw error;
      // llama.cpp's WebGPU backend refuses some adapters (no shader-f16, small limits): use the CPU.
      const reason = error instanceof Error ? error.message : String(error);
      started = await start(
        record,
        blobs,
        { ...planned, backend: 'wasm', adapter: undefined, gpuLayers: 0, fallbackReason: reason },
        contextLength,
      );
    }
    await options.store.touch(record.id);
    return {
      model: record.id,
      wllama: started.wllama,
      log: started.log,
      unsafeTokens: unsafeByteTokens(metadata),
      info: started.info,
      sizeBytes: record.sizeBytes,
      contextLength,
      slots: new SlotQueue(parallel),
    };
  }

  const defaultContextLength = options.contextLength ?? 4096;
  const residency = createResidency<LoadedWllama>({
    store: options.store,
    load: (record, contextLength) => loadRecord(record, contextLength ?? defaultContextLength),
    unload: (current) => current.wllama.exit(),
    defaultContextLength,
    keepAliveMs,
    clock,
  });

  async function* generate(
    request: GenerateRequest,
    generateOptions: GenerateOptions = {},
  ): AsyncGenerator<GenerateEvent> {
    const { signal } = generateOptions;
    const started = clock();
    const { current, loadMs } = await residency.acquire(
      request.model,
      request.contextLength,
      signal,
    );
    let releaseSlot: (() => void) | undefined;
    try {
      releaseSlot = await current.slots.take(signal);
      const sampling = samplingParams(request.sampling, current.unsafeTokens);
      const params = { ...sampling, stream: true as const, abortSignal: signal };
      const input = request.input;
      const stream = (
        input.kind === 'chat'
          ? await current.wllama.createChatCompletion({
              ...params,
              messages: (await wllamaMessages(input.messages)) as never,
            })
          : wllamaRawCompletion(current.wllama, { ...sampling, prompt: input.prompt }, { signal })
      ) as AsyncIterable<WllamaChunk>;
      let finishReason: FinishReason = 'stop';
      let last: WllamaChunk = {};
      let tokens = 0;
      for await (const chunk of stream) {
        const choice = chunk.choices?.[0];
        const text = choice?.delta?.content ?? choice?.text ?? '';
        if (text) {
          tokens += 1;
          yield { type: 'token', text };
        }
        if (choice?.finish_reason === 'length') finishReason = 'length';
        if (chunk.timings || chunk.usage) last = { ...last, ...chunk };
      }
      signal?.throwIfAborted();
      const timings = last.timings;
      yield {
        type: 'done',
        finishReason,
        usage: chunkUsage(last, tokens),
        timings: {
          loadMs,
          promptMs: timings?.prompt_ms ?? 0,
          decodeMs: timings?.predicted_ms ?? 0,
          totalMs: clock() - started,
        },
      };
    } catch (error) {
      if (error instanceof WllamaAbortError || signal?.aborted) {
        throw new LmtabError('aborted', 'The request was aborted by the client.', { cause: error });
      }
      // wllama rejected every pending task of this instance; the next request gets a fresh one.
      if (error instanceof WllamaRuntimeError) current.broken = true;
      const failure = toLmtabError(error);
      if (failure.code !== 'engine_failure') throw failure;
      if (/Context size has been exceeded/.test(failure.message)) {
        throw new LmtabError(
          'invalid_request',
          `The context is full: ${current.model} is loaded with ${current.contextLength.toLocaleString('en')} tokens of context, shared by its ${parallel} parallel slots, and this answer (with any others in progress) needed more. Ask for fewer tokens (max_tokens, num_predict), or load the model with a longer context (num_ctx, or Developer -> Load settings).`,
          { param: 'max_tokens', cause: error },
        );
      }
      throw new LmtabError(
        'engine_failure',
        `${failure.message}. Last engine log: ${current.log.tail(3)}`,
        { cause: error },
      );
    } finally {
      releaseSlot?.();
      residency.release(current);
    }
  }

  return {
    generate,
    load: async (model: string, loadOptions: LoadOptions = {}): Promise<LoadedModel> =>
      describe(await residency.load(model, loadOptions.contextLength, loadOptions.signal)),
    unload: (model?: string) => residency.unload(model),
    loaded: () => {
      const current = residency.resident();
      return current ? [describe(current)] : [];
    },
    info: async () => residency.resident()?.info ?? plannedInfo(),
    supportsImages: (record) => !!record.projector,
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
