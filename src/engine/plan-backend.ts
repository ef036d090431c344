import type { Capabilities } from './capability-probe.js';
import type { EngineInfo, EngineSettings } from './engine.js';

/** Layer count meaning "all of them" to llama.cpp. */
const allLayers = 999;

/**
 * Chooses the compute path before loading: WebGPU with every layer (or the chosen count) when an
 * adapter llama.cpp can use exists, WebAssembly threads otherwise, with the reason.
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
  if (caps.adapter) base.gpu = { adapter: caps.adapter, features: caps.features ?? [] };
  let fallbackReason: string | undefined;
  if (settings.gpuLayers === 0) fallbackReason = 'GPU layers are set to 0 (CPU only)';
  else if (!caps.adapter) fallbackReason = caps.noAdapterReason ?? 'no WebGPU adapter is available';
  else if (!caps.shaderF16) {
    // llama.cpp's WebGPU backend asks for shader-f16 and registers no device without it.
    fallbackReason = `the WebGPU adapter (${caps.adapter}) lacks shader-f16, which llama.cpp's WebGPU backend requires`;
  }
  if (fallbackReason) return { ...base, backend: 'wasm', gpuLayers: 0, fallbackReason };
  return {
    ...base,
    backend: 'webgpu',
    adapter: caps.adapter,
    gpuLayers: settings.gpuLayers ?? allLayers,
  };
}

/**
 * Corrects the plan with what llama.cpp reported while loading ("offloaded 17/17 layers to GPU"):
 * a WebGPU plan that offloaded nothing ran on the CPU, and says so.
 */
export function confirmBackend(planned: EngineInfo, log: string[]): EngineInfo {
  if (planned.backend !== 'webgpu') return planned;
  let offloaded = 0;
  for (const line of log) {
    const match = /offloaded (\d+)\/(\d+) layers to GPU/.exec(line);
    if (match) offloaded = Number(match[1]);
  }
  if (offloaded > 0) return { ...planned, gpuLayers: offloaded };
  return {
    ...planned,
    backend: 'wasm',
    gpuLayers: 0,
    fallbackReason: `llama.cpp registered no WebGPU device on the adapter (${planned.adapter}); running on WebAssembly`,
    adapter: undefined,
  };
}
