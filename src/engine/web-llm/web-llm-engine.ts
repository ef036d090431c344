import { cannotHear, cannotSpeak, rejecting } from '../audio-model.js';
import type {
  AppConfig,
  MLCEngineConfig,
  MLCEngineInterface,
  ModelRecord as WebLlmModelRecord,
  ModelType,
} from '@mlc-ai/web-llm';
import { LmtabError, toLmtabError } from '../../errors/index.js';
import { storedFilePath, storedModelPath } from '../../store/index.js';
import type { MlcSource, ModelRecord, ModelStore } from '../../store/index.js';
import { probeCapabilities, type Capabilities } from '../gpu/capability-probe.js';
import { isNvidiaAdapter } from '../gpu/gpu-adapter.js';
import { nvidiaF16Hint } from '../gpu/shader-f16-reason.js';
import type {
  Engine,
  EngineInfo,
  GenerateEvent,
  GenerateOptions,
  GenerateRequest,
  LoadedModel,
  LoadOptions,
} from '../engine.js';
import { createResidency, describeResident, type ResidencyState } from '../residency.js';
import { webLlmEvents } from './web-llm-events.js';
import { toWebLlmChatRequest, toWebLlmCompletionRequest } from './web-llm-request.js';
import { countPromptTokens } from '../count-prompt-tokens.js';
import { engineDefaults } from '../engine-defaults.js';

/** The part of web-llm's engine interface lmtab drives. */
export type WebLlmEngineLike = Pick<
  MLCEngineInterface,
  'reload' | 'chatCompletion' | 'completion' | 'interruptGenerate' | 'unload'
>;

/** Options of {@link createWebLlmEngine}. */
export interface WebLlmEngineOptions {
  /** Where models are read from. */
  store: Pick<ModelStore, 'get' | 'touch'>;
  /**
   * Origin whose service worker serves the stored files (`/lmtab-store/...`); web-llm fetches a
   * model from there. The engine worker's `self.location.origin`.
   */
  origin: string;
  /** Creates web-llm's engine; default `new MLCEngine(config)` from `@mlc-ai/web-llm`, loaded on first use. */
  createEngine?: (config: MLCEngineConfig) => Promise<WebLlmEngineLike>;
  /**
   * Drops the copy web-llm makes of a model's files in its own cache while loading (the store
   * keeps the files); default web-llm's `deleteModelAllInfoInCache`.
   */
  dropCopies?: (modelId: string, appConfig: AppConfig) => Promise<void>;
  /** Milliseconds an idle model stays loaded; default {@link engineDefaults.keepAliveMs} (5 minutes). */
  keepAliveMs?: number;
  /** Context length in tokens when a request names none; default the model's own. */
  contextLength?: number;
  /** Clock in epoch milliseconds; default `Date.now`. */
  clock?: () => number;
  /** Capability probe; default {@link probeCapabilities}. */
  probe?: () => Promise<Capabilities>;
}

interface LoadedMlc {
  model: string;
  engine: WebLlmEngineLike;
  sizeBytes: number;
  contextLength: number;
  info: EngineInfo;
}

/** web-llm's `ModelType.LLM` and `ModelType.VLM` (a runtime enum of the lazily loaded module). */
const webLlmModelType = { llm: 0 as ModelType, vlm: 2 as ModelType };

function mlcSource(record: ModelRecord): MlcSource {
  if (record.source.kind !== 'mlc') {
    throw new LmtabError(
      'invalid_request',
      `Model "${record.id}" is not an MLC model (its format is ${record.format ?? 'gguf'}): web-llm cannot run it.`,
      { param: 'model' },
    );
  }
  return record.source;
}

/**
 * web-llm's model record for a stored MLC model: the weights, config and tokenizer at the store's
 * URLs (the service worker answers them from IndexedDB) and the model library at a relative URL,
 * which web-llm fetches without copying it into its cache.
 */
export function webLlmModelRecord(record: ModelRecord, origin: string): WebLlmModelRecord {
  const source = mlcSource(record);
  return {
    model: new URL(storedModelPath(record.id), origin).href,
    model_id: record.id,
    model_lib: storedFilePath(record.id, source.libFile),
    model_type: source.vision ? webLlmModelType.vlm : webLlmModelType.llm,
    required_features: source.requiredFeatures,
    ...(source.overrides ? { overrides: source.overrides } : {}),
    ...(source.integrity ? { integrity: source.integrity } : {}),
    ...(source.manifestFile ? { model_manifest: source.manifestFile } : {}),
  };
}

async function defaultCreateEngine(config: MLCEngineConfig): Promise<WebLlmEngineLike> {
  const { MLCEngine } = await import('@mlc-ai/web-llm');
  return new MLCEngine(config);
}

async function defaultDropCopies(modelId: string, appConfig: AppConfig): Promise<void> {
  const { deleteModelAllInfoInCache } = await import('@mlc-ai/web-llm');
  await deleteModelAllInfoInCache(modelId, appConfig);
  // web-llm 0.2.86 reads tensor-cache.json back into its cache to learn which shards to delete,
  // and leaves it there: sweep what is left under the model's URL from web-llm's caches.
  const modelUrl = appConfig.model_list.find((m) => m.model_id === modelId)?.model;
  if (modelUrl === undefined) return;
  for (const name of await caches.keys()) {
    if (!name.startsWith('webllm/')) continue;
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      if (request.url.startsWith(modelUrl)) await cache.delete(request);
    }
  }
}

/** One generation at a time: web-llm runs one per model, and `interruptGenerate` stops whichever runs. */
function createTurns() {
  let tail: Promise<void> = Promise.resolve();
  return async (signal?: AbortSignal): Promise<() => void> => {
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const previous = tail;
    tail = previous.then(() => mine);
    const aborted = new Promise<never>((_, reject) => {
      const onAbort = () =>
        reject(new LmtabError('aborted', 'The request was aborted by the client.'));
      if (signal?.aborted) onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      void previous.then(() => signal?.removeEventListener('abort', onAbort));
    });
    try {
      await Promise.race([previous, aborted]);
    } catch (error) {
      // Give the turn up when ours comes, so the queue moves on.
      void previous.then(release);
      throw error;
    }
    return release;
  };
}

/**
 * The web-llm backend: MLC-compiled models on WebGPU. Models come from lmtab's store: web-llm
 * fetches them from the service worker's `/lmtab-store/` URLs, copies them into its own cache
 * while loading (it has no option to skip that), and the copy is dropped once the model is on the
 * GPU, so the store stays the one copy on disk. One model is resident at a time; generations run
 * one after another.
 */
export function createWebLlmEngine(options: WebLlmEngineOptions): Engine {
  const clock = options.clock ?? Date.now;
  const probe = options.probe ?? probeCapabilities;
  const keepAliveMs = options.keepAliveMs ?? engineDefaults.keepAliveMs;
  const createEngine = options.createEngine ?? defaultCreateEngine;
  const dropCopies = options.dropCopies ?? defaultDropCopies;
  const nextTurn = createTurns();
  let capabilities: Promise<Capabilities> | undefined;

  const capabilitiesOnce = () => (capabilities ??= probe());

  function baseInfo(caps: Capabilities, gpuLayers: number): EngineInfo {
    return {
      engine: 'web-llm',
      backend: 'webgpu',
      ...(caps.adapter ? { adapter: caps.adapter } : {}),
      threads: 1,
      gpuLayers,
      crossOriginIsolated: caps.crossOriginIsolated,
      ...(caps.adapter
        ? {}
        : {
            fallbackReason: `web-llm runs only on WebGPU: ${caps.noAdapterReason ?? 'no WebGPU adapter is available'}`,
          }),
    };
  }

  /** Refuses, before any download or copy, a model this browser's adapter cannot run. */
  function checkAdapter(record: ModelRecord, caps: Capabilities): void {
    const source = mlcSource(record);
    if (!caps.adapter) {
      throw new LmtabError(
        'engine_failure',
        `Model "${record.id}" is an MLC model, which web-llm runs only on WebGPU, but ${caps.noAdapterReason ?? 'no WebGPU adapter is available'}.`,
      );
    }
    if (source.requiredFeatures.includes('shader-f16') && caps.shaderF16 !== true) {
      throw new LmtabError(
        'engine_failure',
        `Model "${record.id}" needs the WebGPU feature shader-f16, which the adapter (${caps.adapter}) lacks: use the model's q4f32 variant.` +
          (caps.gpu && isNvidiaAdapter(caps.gpu) ? ` ${nvidiaF16Hint()}.` : ''),
      );
    }
  }

  async function loadRecord(
    record: ModelRecord,
    contextLength: number | undefined,
  ): Promise<LoadedMlc> {
    const caps = await capabilitiesOnce();
    checkAdapter(record, caps);
    const appConfig: AppConfig = {
      model_list: [webLlmModelRecord(record, options.origin)],
      cacheBackend: 'cache',
    };
    const engine = await createEngine({ appConfig, logLevel: 'WARN' });
    try {
      await engine.reload(
        record.id,
        contextLength === undefined ? undefined : { context_window_size: contextLength },
      );
    } catch (error) {
      await engine.unload().catch(() => undefined);
      const reason = error instanceof Error ? error.message : String(error);
      throw new LmtabError(
        'engine_failure',
        `Loading ${record.id} with web-llm on WebGPU (${caps.adapter}) failed: ${reason}`,
        { cause: error },
      );
    } finally {
      await dropCopies(record.id, appConfig).catch(() => undefined);
    }
    await options.store.touch(record.id);
    return {
      model: record.id,
      engine,
      sizeBytes: record.sizeBytes,
      contextLength: contextLength ?? record.gguf.contextLength ?? 0,
      info: baseInfo(caps, record.gguf.blockCount ?? 0),
    };
  }

  const residency = createResidency<LoadedMlc>({
    store: options.store,
    load: loadRecord,
    unload: (current) => current.engine.unload(),
    defaultContextLength: options.contextLength,
    keepAliveMs,
    clock,
  });

  async function* generate(
    request: GenerateRequest,
    generateOptions: GenerateOptions = {},
  ): AsyncGenerator<GenerateEvent> {
    const { signal } = generateOptions;
    const started = clock();
    const { current, record, loadMs } = await residency.acquire(
      request.model,
      request.contextLength,
      signal,
    );
    let endTurn: (() => void) | undefined;
    const interrupt = () => void current.engine.interruptGenerate();
    try {
      const vision = mlcSource(record).vision;
      // Map first: a request web-llm would refuse fails before it waits for a turn.
      const chat = request.input.kind === 'chat';
      const body = chat
        ? toWebLlmChatRequest(request, { vision })
        : toWebLlmCompletionRequest(request);
      endTurn = await nextTurn(signal);
      signal?.throwIfAborted();
      const stream = chat
        ? await current.engine.chatCompletion(body as ReturnType<typeof toWebLlmChatRequest>)
        : await current.engine.completion(body as ReturnType<typeof toWebLlmCompletionRequest>);
      signal?.addEventListener('abort', interrupt, { once: true });
      yield* webLlmEvents(stream, { started, loadMs, clock, signal });
    } catch (error) {
      if (signal?.aborted) {
        throw new LmtabError('aborted', 'The request was aborted by the client.', { cause: error });
      }
      throw toLmtabError(error);
    } finally {
      signal?.removeEventListener('abort', interrupt);
      endTurn?.();
      residency.release(current);
    }
  }

  function describe(current: LoadedMlc & ResidencyState): LoadedModel {
    return describeResident(current, 1);
  }

  return {
    generate,
    countTokens: (request, countOptions) => countPromptTokens(generate, request, countOptions),
    load: async (model: string, loadOptions: LoadOptions = {}): Promise<LoadedModel> =>
      describe(await residency.load(model, loadOptions.contextLength, loadOptions.signal)),
    unload: (model?: string) => residency.unload(model),
    loaded: () => {
      const current = residency.resident();
      return current ? [describe(current)] : [];
    },
    info: async () => residency.resident()?.info ?? baseInfo(await capabilitiesOnce(), 0),
    supportsImages: (record) => record.source.kind === 'mlc' && record.source.vision,
    embed: (request) => Promise.reject(cannotEmbed(request.model)),
    tokenize: (request) => Promise.reject(noTokenizer(request.model)),
    detokenize: (request) => Promise.reject(noTokenizer(request.model)),
    applyTemplate: (request) => Promise.reject(noTokenizer(request.model)),
    transcribe: (request) =>
      rejecting(
        cannotHear(
          request.model,
          'it is an MLC model (run by web-llm, which reads text and images only)',
        ),
      ),
    speak: (request) =>
      rejecting(
        cannotSpeak(request.model, 'it is an MLC model (run by web-llm, which writes text only)'),
      ),
    rerank: (request) =>
      Promise.reject(
        new LmtabError(
          'invalid_request',
          `Model "${request.model}" cannot rerank: expected a GGUF reranker (a GGUF whose pooling type is rank, run by wllama), received an MLC chat model (run by web-llm, which lmtab uses for chat only).`,
          { param: 'model' },
        ),
      ),
  };
}

/** MLC models run here only as chat models (web-llm's embedding models are not in lmtab's catalog). */
function cannotEmbed(model: string): LmtabError {
  return new LmtabError(
    'invalid_request',
    `Model "${model}" cannot embed: expected a GGUF embedding model (run by wllama), received an MLC chat model (run by web-llm, which lmtab uses for chat only).`,
    { param: 'model' },
  );
}

/** web-llm offers no tokenizer call to lmtab: llama-server's token routes are GGUF-only. */
function noTokenizer(model: string): LmtabError {
  return new LmtabError(
    'not_implemented',
    `Model "${model}" is an MLC model (run by web-llm), which has no tokenizer call lmtab can use: /tokenize, /detokenize and /apply-template expected a GGUF model (run by wllama on lmtab's CPU build).`,
  );
}
