import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Chromium flags for a container: no sandbox (containers rarely grant user namespaces) and no
 * /dev/shm (Docker gives it 64 MiB, too little for a model's buffers).
 */
export const CONTAINER_CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-dev-shm-usage',
];

/**
 * Chromium flags for WebGPU on an NVIDIA GPU: ANGLE and Dawn on Vulkan, past the GPU blocklist that
 * headless mode trips, WebGPU on where Linux leaves it off, and Dawn's `vulkan_enable_f16_on_nvidia`
 * toggle, without which Chrome hides `shader-f16` on NVIDIA's Vulkan driver and llama.cpp's WebGPU
 * backend registers no device (the model then runs on the CPU: 2.8 instead of 109.9 tok/s decode
 * on an RTX 5090, `shared/gpu/WEBGPU-FACTS.md`). The engine's fallback reason names the same ones
 * (`src/engine/gpu/shader-f16-reason.ts`).
 */
export const NVIDIA_CHROMIUM_ARGS: readonly string[] = [
  '--enable-dawn-features=vulkan_enable_f16_on_nvidia',
  '--use-angle=vulkan',
  '--enable-features=Vulkan,WebGPU',
  '--ignore-gpu-blocklist',
  '--enable-unsafe-webgpu',
];

/**
 * Chromium flags of a cloud GPU pod: {@link NVIDIA_CHROMIUM_ARGS} and no Vulkan surface (the pod
 * has no display; the NVIDIA container runtime mounts the Vulkan driver when
 * `NVIDIA_DRIVER_CAPABILITIES` has `graphics`).
 */
export const GPU_CHROMIUM_ARGS: readonly string[] = [
  ...NVIDIA_CHROMIUM_ARGS,
  '--disable-vulkan-surface',
];

/** The environment variable the headless engine launcher reads extra Chromium flags from. */
export const CHROMIUM_ARGS_ENV = 'LMTAB_CHROMIUM_ARGS';

/** Extra Chromium flags from `LMTAB_CHROMIUM_ARGS` (space-separated); none when unset. */
export function chromiumArgsFromEnv(env: NodeJS.ProcessEnv): string[] {
  return (env[CHROMIUM_ARGS_ENV] ?? '').split(/\s+/).filter((arg) => arg !== '');
}

/** What {@link hasNvidiaGpu} looks at; each part defaults to this machine's. */
export interface NvidiaProbe {
  /** Whether a path exists; default `fs.existsSync`. */
  exists?: (path: string) => boolean;
  /** The environment whose `PATH` is searched for `nvidia-smi`; default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Whether this machine (or container) has an NVIDIA GPU: its kernel driver
 * (`/proc/driver/nvidia/version`), its device node (`/dev/nvidia0`, which the NVIDIA container
 * runtime mounts into a pod), or `nvidia-smi` on the `PATH`.
 */
export function hasNvidiaGpu(probe: NvidiaProbe = {}): boolean {
  const exists = probe.exists ?? existsSync;
  const env = probe.env ?? process.env;
  if (exists('/proc/driver/nvidia/version') || exists('/dev/nvidia0')) return true;
  const dirs = (env.PATH ?? '').split(delimiter).filter((dir) => dir !== '');
  return dirs.some((dir) => exists(join(dir, 'nvidia-smi')));
}

/** The GPU flags for a Chromium lmtab starts: {@link NVIDIA_CHROMIUM_ARGS} on NVIDIA, none elsewhere. */
export function gpuChromiumArgs(nvidia: boolean): readonly string[] {
  return nvidia ? NVIDIA_CHROMIUM_ARGS : [];
}

/** Switches whose comma-separated values add up (Chromium keeps only the last of each). */
const listSwitches = ['--enable-features', '--disable-features', '--enable-dawn-features'];

/**
 * Flag lists joined into one, each flag once, with the values of repeated `--enable-features`,
 * `--disable-features` and `--enable-dawn-features` merged into one switch each where the first
 * one stood: Chromium would honour only the last.
 */
export function mergeChromiumArgs(...lists: readonly (readonly string[])[]): string[] {
  const out: string[] = [];
  const values = new Map<string, Set<string>>();
  for (const arg of lists.flat()) {
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg : arg.slice(0, eq);
    if (eq >= 0 && listSwitches.includes(name)) {
      const seen = values.get(name);
      const parts = arg
        .slice(eq + 1)
        .split(',')
        .filter((part) => part !== '');
      if (seen) parts.forEach((part) => seen.add(part));
      else {
        values.set(name, new Set(parts));
        out.push(name);
      }
    } else if (!out.includes(arg)) out.push(arg);
  }
  return out.map((arg) => (values.has(arg) ? `${arg}=${[...values.get(arg)!].join(',')}` : arg));
}
