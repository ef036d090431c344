import type { GpuAdapterReport } from '../gpu-adapter-report.js';
import { checkF16Compute, type F16CheckAdapter } from './f16-check.js';
import { describeAdapter, gpuPowerPreference, type GpuAdapterLike } from './gpu-adapter.js';

/** What this browser context offers an engine, probed without loading a model. */
export interface Capabilities {
  /** Description of the WebGPU adapter, when one is available. */
  adapter?: string;
  /** Whether the adapter has `shader-f16`, which llama.cpp's WebGPU backend requires. */
  shaderF16?: boolean;
  /** Every feature of the adapter (`shader-f16`, `subgroups`, ...), when there is one. */
  features?: string[];
  /** The whole report of the adapter (vendor, architecture, limits), when there is one. */
  gpu?: GpuAdapterReport;
  /** Why there is no WebGPU adapter, when there is none. */
  noAdapterReason?: string;
  /**
   * Why the adapter is not trusted with a model although it advertises `shader-f16`: it computed
   * lmtab's f16 check wrong, or failed to run it (`f16-check.ts`).
   */
  f16CheckFailure?: string;
  /** Logical CPU cores the context may use for WebAssembly threads. */
  cores: number;
  /** Whether SharedArrayBuffer (and so more than one thread) is available. */
  crossOriginIsolated: boolean;
}

interface GpuLike {
  requestAdapter(options?: {
    powerPreference?: string;
  }): Promise<(GpuAdapterLike & F16CheckAdapter) | null>;
}

/**
 * Probes WebGPU and threading support in the current window or worker. The adapter is asked for
 * with the high-performance power preference, as llama.cpp's is (`gpu-worker-prologue.ts`), so both
 * get the same GPU where a machine has two; one that advertises `shader-f16` runs `check` (lmtab's
 * f16 compute check) before a model is trusted to it.
 */
export async function probeCapabilities(
  check: (
    adapter: GpuAdapterLike & F16CheckAdapter,
  ) => Promise<string | undefined> = checkF16Compute,
): Promise<Capabilities> {
  const isolated = globalThis.crossOriginIsolated === true;
  const cores = isolated ? Math.max(1, navigator.hardwareConcurrency ?? 1) : 1;
  const gpu = (navigator as Navigator & { gpu?: GpuLike }).gpu;
  if (!gpu)
    return { cores, crossOriginIsolated: isolated, noAdapterReason: 'this browser has no WebGPU' };
  try {
    const adapter = await gpu.requestAdapter({ powerPreference: gpuPowerPreference });
    if (!adapter) {
      return {
        cores,
        crossOriginIsolated: isolated,
        noAdapterReason: 'no WebGPU adapter is available',
      };
    }
    const report = describeAdapter(adapter);
    const shaderF16 = report.features.includes('shader-f16');
    const f16CheckFailure = shaderF16 ? await check(adapter) : undefined;
    return {
      cores,
      crossOriginIsolated: isolated,
      adapter: report.adapter,
      shaderF16,
      features: report.features,
      gpu: report,
      ...(f16CheckFailure !== undefined && { f16CheckFailure }),
    };
  } catch (error) {
    return {
      cores,
      crossOriginIsolated: isolated,
      noAdapterReason: `requesting a WebGPU adapter failed: ${String(error)}`,
    };
  }
}
