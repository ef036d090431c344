import { adapterInfoFromLog, graphSplitsFromLog, offloadedFromLog } from './backend-record.js';
import type { Capabilities } from './capability-probe.js';
import type { EngineInfo, EngineSettings } from '../engine.js';
import { shaderF16Reason } from './shader-f16-reason.js';

/** Layer count meaning "all of them" to llama.cpp. */
const allLayers = 999;

/**
 * Chooses the compute path before loading: WebGPU with every layer (or the chosen count) when an
 * adapter llama.cpp can use exists, WebAssembly threads otherwise, with the reason (on NVIDIA
 * without `shader-f16`, the Chrome switches that fix it).
 */
export function planBackend(
  caps: Capabilities,
  settings: EngineSettings,
  engine: string,
): EngineInfo {
  const threads = caps.crossOriginIsolated ? Math.max(1, settings.threads ?? caps.cores) : 1;
  const base: Pick<EngineInfo, 'engine' | 'threads' | 'crossOriginIsolated' | 'gpu'> = {
    engine,
    threads,
    crossOriginIsolated: caps.crossOriginIsolated,
  };
  if (caps.adapter) base.gpu = caps.gpu ?? { adapter: caps.adapter, features: caps.features ?? [] };
  let fallbackReason: string | undefined;
  if (settings.gpuLayers === 0) fallbackReason = 'GPU layers are set to 0 (CPU only)';
  else if (!base.gpu) fallbackReason = caps.noAdapterReason ?? 'no WebGPU adapter is available';
  // llama.cpp's WebGPU backend asks for shader-f16 and registers no device without it.
  else if (!caps.shaderF16) fallbackReason = shaderF16Reason(base.gpu);
  // The adapter advertises shader-f16 but computed an f16 shader wrong (f16-check.ts).
  else if (caps.f16CheckFailure) fallbackReason = caps.f16CheckFailure;
  if (fallbackReason) return { ...base, backend: 'wasm', gpuLayers: 0, fallbackReason };
  return {
    ...base,
    backend: 'webgpu',
    adapter: caps.adapter,
    gpuLayers: settings.gpuLayers ?? allLayers,
  };
}

/**
 * Corrects the plan with what llama.cpp reported while loading (its backend lines, see
 * `backend-record.ts`): a WebGPU plan that offloaded nothing ran on the CPU, and says so; one that
 * did names the adapter llama.cpp took (`ggml_webgpu: adapter_info`) and its graph splits.
 */
export function confirmBackend(planned: EngineInfo, log: string[]): EngineInfo {
  const splits = graphSplitsFromLog(log);
  const lines = {
    ...(log.length > 0 && { backendLines: log }),
    ...(splits !== undefined && { graphSplits: splits }),
  };
  if (planned.backend !== 'webgpu') return { ...planned, ...lines };
  const offloaded = offloadedFromLog(log)?.layers ?? 0;
  if (offloaded > 0) {
    const taken = adapterInfoFromLog(log);
    const named = taken && [taken.vendor, taken.architecture, taken.description || taken.device];
    return {
      ...planned,
      ...lines,
      gpuLayers: offloaded,
      ...(named && named.some((p) => p) && { adapter: named.filter((p) => p).join(' ') }),
    };
  }
  return {
    ...planned,
    ...lines,
    backend: 'wasm',
    gpuLayers: 0,
    fallbackReason: `llama.cpp registered no WebGPU device on the adapter (${planned.adapter}); running on WebAssembly`,
    adapter: undefined,
  };
}
