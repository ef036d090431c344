import { probeCapabilities, type Capabilities } from '../gpu/capability-probe.js';
import type { Engine, EngineInfo, LoadedModel, LoadOptions } from '../engine.js';
import type { BackendRecord } from '../gpu/backend-record.js';
import { loseGpuDevice, withGpuLossReason } from '../gpu/gpu-loss.js';
import { createWllamaEmbedder } from './wllama-embed.js';
import { planBackend } from '../gpu/plan-backend.js';
import { createResidency, describeResident } from '../residency.js';
import { countPromptTokens } from '../count-prompt-tokens.js';
import { engineDefaults } from '../engine-defaults.js';
import { createWllamaAudio } from './wllama-audio.js';
import { createWllamaGenerate } from './wllama-generate.js';
import { createWllamaLoader } from './wllama-load.js';
import type { LoadedWllama, WllamaEngineOptions, WllamaRuntime } from './wllama-runtime.js';
import { createWllamaTokens } from './wllama-tokens.js';

export type { WllamaEngineOptions } from './wllama-runtime.js';

/** The wllama engine, with a test hook besides the {@link Engine} interface. */
export interface WllamaEngine extends Engine {
  /** Test hook: loses the resident model's GPU device (see `loseGpuDevice` in `gpu-loss.ts`). */
  loseGpuDevice(): Promise<'destroyed' | 'simulated' | 'no model'>;
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
    return planBackend(withGpuLossReason(await capabilitiesOnce(), lastGpuLoss), options, 'wllama');
  }

  /** Why a model is about to load with a longer context than asked, by model id. */
  const contextReasons = new Map<string, string>();
  const loadRecord = createWllamaLoader({
    options,
    parallel,
    plannedInfo,
    gpuLost,
    contextReasons,
  });

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
  const runtime: WllamaRuntime = { options, residency, clock, parallel };
  const generate = createWllamaGenerate(runtime, contextReasons);
  const { transcribe, speak } = createWllamaAudio(runtime);
  const { tokenize, detokenize, applyTemplate } = createWllamaTokens(runtime);

  const embedder = createWllamaEmbedder({
    store: options.store,
    wasmUrl: options.wasmUrl,
    cpuBuild: options.cpuBuild,
    plannedInfo,
    keepAliveMs,
    clock,
  });

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
      describeResident(
        await residency.load(model, loadOptions.contextLength, loadOptions.signal),
        parallel,
      ),
    unload: async (model?: string) => {
      await Promise.all([residency.unload(model), embedder.unload(model)]);
    },
    loaded: () => {
      const current = residency.resident();
      return [...(current ? [describeResident(current, parallel)] : []), ...embedder.loaded()];
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
}
