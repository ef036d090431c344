/** What this browser context offers an engine, probed without loading a model. */
export interface Capabilities {
  /** Description of the WebGPU adapter, when one is available. */
  adapter?: string;
  /** Whether the adapter has `shader-f16`, which llama.cpp's WebGPU backend requires. */
  shaderF16?: boolean;
  /** Every feature of the adapter (`shader-f16`, `subgroups`, ...), when there is one. */
  features?: string[];
  /** Why there is no WebGPU adapter, when there is none. */
  noAdapterReason?: string;
  /** Logical CPU cores the context may use for WebAssembly threads. */
  cores: number;
  /** Whether SharedArrayBuffer (and so more than one thread) is available. */
  crossOriginIsolated: boolean;
}

interface GpuAdapterLike {
  features?: ReadonlySet<string>;
  info?: { vendor?: string; architecture?: string; description?: string; device?: string };
}

/** Probes WebGPU and threading support in the current window or worker. */
export async function probeCapabilities(): Promise<Capabilities> {
  const isolated = globalThis.crossOriginIsolated === true;
  const cores = isolated ? Math.max(1, navigator.hardwareConcurrency ?? 1) : 1;
  const gpu = (
    navigator as Navigator & { gpu?: { requestAdapter(): Promise<GpuAdapterLike | null> } }
  ).gpu;
  if (!gpu)
    return { cores, crossOriginIsolated: isolated, noAdapterReason: 'this browser has no WebGPU' };
  try {
    const adapter = await gpu.requestAdapter();
    if (!adapter) {
      return {
        cores,
        crossOriginIsolated: isolated,
        noAdapterReason: 'no WebGPU adapter is available',
      };
    }
    const info = adapter.info ?? {};
    const parts = [info.vendor, info.architecture, info.description ?? info.device].filter(
      (p): p is string => !!p,
    );
    return {
      cores,
      crossOriginIsolated: isolated,
      adapter: parts.join(' ') || 'WebGPU adapter',
      shaderF16: adapter.features?.has('shader-f16') ?? false,
      features: [...(adapter.features ?? [])],
    };
  } catch (error) {
    return {
      cores,
      crossOriginIsolated: isolated,
      noAdapterReason: `requesting a WebGPU adapter failed: ${String(error)}`,
    };
  }
}
