import { describe, expect, it } from 'vitest';
import { nvidiaChromeFlags } from '../engine/index.js';
import {
  GPU_CHROMIUM_ARGS,
  gpuChromiumArgs,
  hasNvidiaGpu,
  mergeChromiumArgs,
  NVIDIA_CHROMIUM_ARGS,
} from './chromium-args.js';

describe('hasNvidiaGpu', () => {
  const only =
    (...paths: string[]) =>
    (path: string) =>
      paths.includes(path);

  it('finds the driver, the device node or nvidia-smi on the PATH', () => {
    const env = { PATH: '/usr/local/bin:/usr/bin' };
    expect(hasNvidiaGpu({ exists: only(), env })).toBe(false);
    expect(hasNvidiaGpu({ exists: only('/proc/driver/nvidia/version'), env })).toBe(true);
    expect(hasNvidiaGpu({ exists: only('/dev/nvidia0'), env })).toBe(true);
    expect(hasNvidiaGpu({ exists: only('/usr/bin/nvidia-smi'), env })).toBe(true);
    expect(hasNvidiaGpu({ exists: only('/opt/nvidia/bin/nvidia-smi'), env })).toBe(false);
    expect(hasNvidiaGpu({ exists: only('/usr/bin/nvidia-smi'), env: {} })).toBe(false);
  });
});

describe('the GPU switches of a Chromium lmtab starts', () => {
  it('are the Vulkan ones and the NVIDIA f16 toggle on NVIDIA, none elsewhere', () => {
    expect(gpuChromiumArgs(false)).toEqual([]);
    expect(gpuChromiumArgs(true)).toEqual([
      '--enable-dawn-features=vulkan_enable_f16_on_nvidia',
      '--use-angle=vulkan',
      '--enable-features=Vulkan,WebGPU',
      '--ignore-gpu-blocklist',
      '--enable-unsafe-webgpu',
    ]);
    expect(GPU_CHROMIUM_ARGS).toEqual([...NVIDIA_CHROMIUM_ARGS, '--disable-vulkan-surface']);
  });

  it('are the ones the engine tells a person with an NVIDIA GPU to start Chrome with', () => {
    expect(NVIDIA_CHROMIUM_ARGS).toContain(nvidiaChromeFlags.f16);
    for (const flag of nvidiaChromeFlags.linuxVulkan) expect(NVIDIA_CHROMIUM_ARGS).toContain(flag);
  });

  it('merge so that every --enable-features value counts, each flag once', () => {
    expect(
      mergeChromiumArgs(['--no-sandbox', '--enable-features=Vulkan,WebGPU'], NVIDIA_CHROMIUM_ARGS, [
        '--enable-features=SharedArrayBuffer',
        '--no-sandbox',
        '--enable-dawn-features=dump_shaders',
      ]),
    ).toEqual([
      '--no-sandbox',
      '--enable-features=Vulkan,WebGPU,SharedArrayBuffer',
      '--enable-dawn-features=vulkan_enable_f16_on_nvidia,dump_shaders',
      '--use-angle=vulkan',
      '--ignore-gpu-blocklist',
      '--enable-unsafe-webgpu',
    ]);
  });
});
