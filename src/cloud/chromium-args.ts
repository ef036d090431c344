/**
 * Chromium flags for a container: no sandbox (containers rarely grant user namespaces) and no
 * /dev/shm (Docker gives it 64 MiB, too little for a model's buffers).
 */
export const CONTAINER_CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-dev-shm-usage',
];

/**
 * Chromium flags for WebGPU on an NVIDIA GPU without a display: ANGLE and Dawn on Vulkan (the
 * NVIDIA container runtime mounts the Vulkan driver when `NVIDIA_DRIVER_CAPABILITIES` has
 * `graphics`), no Vulkan surface, and past the GPU blocklist that headless mode trips.
 */
export const GPU_CHROMIUM_ARGS: readonly string[] = [
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-angle=vulkan',
  '--disable-vulkan-surface',
  '--ignore-gpu-blocklist',
];

/** The environment variable the headless engine launcher reads extra Chromium flags from. */
export const CHROMIUM_ARGS_ENV = 'LMTAB_CHROMIUM_ARGS';

/** Extra Chromium flags from `LMTAB_CHROMIUM_ARGS` (space-separated); none when unset. */
export function chromiumArgsFromEnv(env: NodeJS.ProcessEnv): string[] {
  return (env[CHROMIUM_ARGS_ENV] ?? '').split(/\s+/).filter((arg) => arg !== '');
}
