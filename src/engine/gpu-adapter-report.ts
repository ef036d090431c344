// A WebGPU adapter as lmtab reports it: plain data with no DOM types, so the wire shape of
// `GET /api/lmtab/engine` (src/api/ollama/engine-status-wire.ts) and the CLI can name it.

/** The adapter limits that decide how large a model's buffers may be, in the order shown. */
export const keyGpuLimits = [
  'maxBufferSize',
  'maxStorageBufferBindingSize',
  'maxStorageBuffersPerShaderStage',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
] as const;

/** One of {@link keyGpuLimits}. */
export type KeyGpuLimit = (typeof keyGpuLimits)[number];

/** A WebGPU adapter as lmtab reports it (Developer tab, `GET /api/lmtab/engine`). */
export interface GpuAdapterReport {
  /** One line naming it: vendor, architecture and description (or device), e.g. `nvidia ampere`. */
  adapter: string;
  /** Every feature of the adapter (`shader-f16`, `subgroups`, ...). */
  features: string[];
  /** `GPUAdapterInfo.vendor`, e.g. `nvidia`, `apple`, `google` (SwiftShader); absent when empty. */
  vendor?: string;
  /** `GPUAdapterInfo.architecture`, e.g. `ampere`, `swiftshader`. */
  architecture?: string;
  /** `GPUAdapterInfo.device`: a vendor's device id or name, where the browser reveals one. */
  device?: string;
  /** `GPUAdapterInfo.description`: the driver's name for the GPU, where the browser reveals one. */
  description?: string;
  /** Whether it is a fallback (software) adapter, where the browser says. */
  isFallbackAdapter?: boolean;
  /** The {@link keyGpuLimits} the adapter has, in bytes or counts. */
  limits?: Partial<Record<KeyGpuLimit, number>>;
  /** The power preference it was requested with (`gpuPowerPreference`, gpu/gpu-adapter.ts). */
  powerPreference?: string;
}
