import type { GpuAdapterReport, KeyGpuLimit } from '../gpu-adapter-report.js';
import { keyGpuLimits } from '../gpu-adapter-report.js';

/**
 * The power preference lmtab asks WebGPU for: on a machine with an integrated and a discrete GPU,
 * the discrete one, which is the one that runs a model fast.
 */
export const gpuPowerPreference = 'high-performance';

/** The part of a `GPUAdapter` {@link describeAdapter} reads. */
export interface GpuAdapterLike {
  features?: ReadonlySet<string>;
  info?: {
    vendor?: string;
    architecture?: string;
    description?: string;
    device?: string;
    isFallbackAdapter?: boolean;
  };
  limits?: Partial<Record<string, number>>;
}

/** The report of an adapter requested with `powerPreference`. */
export function describeAdapter(
  adapter: GpuAdapterLike,
  powerPreference: string = gpuPowerPreference,
): GpuAdapterReport {
  const info = adapter.info ?? {};
  const text = (value: string | undefined) => (value ? value : undefined);
  const vendor = text(info.vendor);
  const architecture = text(info.architecture);
  const device = text(info.device);
  const description = text(info.description);
  const limits: Partial<Record<KeyGpuLimit, number>> = {};
  for (const name of keyGpuLimits) {
    const value = adapter.limits?.[name];
    if (typeof value === 'number') limits[name] = value;
  }
  const named = [vendor, architecture, description ?? device].filter((p) => p !== undefined);
  return {
    adapter: named.join(' ') || 'WebGPU adapter',
    features: [...(adapter.features ?? [])].sort(),
    ...(vendor && { vendor }),
    ...(architecture && { architecture }),
    ...(device && { device }),
    ...(description && { description }),
    ...(typeof info.isFallbackAdapter === 'boolean' && {
      isFallbackAdapter: info.isFallbackAdapter,
    }),
    ...(Object.keys(limits).length > 0 && { limits }),
    powerPreference,
  };
}

/** Whether an adapter is NVIDIA's, by its vendor (or, where that is hidden, its description). */
export function isNvidiaAdapter(report: Pick<GpuAdapterReport, 'vendor' | 'description'>): boolean {
  return /nvidia/i.test(`${report.vendor ?? ''} ${report.description ?? ''}`);
}
