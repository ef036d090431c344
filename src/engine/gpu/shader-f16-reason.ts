import type { GpuAdapterReport } from '../gpu-adapter-report.js';
import { isNvidiaAdapter } from './gpu-adapter.js';

/**
 * The Chrome switches that give WebGPU on NVIDIA's Vulkan driver `shader-f16`: Dawn hides it there
 * unless `vulkan_enable_f16_on_nvidia` is on, and on Linux Chrome reaches the GPU through Vulkan only
 * with the others (`shared/gpu/WEBGPU-FACTS.md`). `lmtab serve --headless` and the cloud GPU pods pass
 * the same ones (`src/cloud/chromium-args.ts`, whose test checks the two lists agree).
 */
export const nvidiaChromeFlags = {
  f16: '--enable-dawn-features=vulkan_enable_f16_on_nvidia',
  linuxVulkan: ['--use-angle=vulkan', '--enable-features=Vulkan,WebGPU', '--ignore-gpu-blocklist'],
} as const;

/** How to turn `shader-f16` on for an NVIDIA GPU in Chrome, as one sentence without its full stop. */
export function nvidiaF16Hint(): string {
  return (
    `On NVIDIA's Vulkan driver Chrome hides shader-f16 unless started with ${nvidiaChromeFlags.f16} ` +
    `(on Linux together with ${nvidiaChromeFlags.linuxVulkan.join(' ')}); restart Chrome with ` +
    'those switches and WebGPU runs on this GPU'
  );
}

/**
 * Why llama.cpp's WebGPU backend cannot use an adapter without `shader-f16`; on NVIDIA, with the
 * Chrome switches that turn it on, since there the GPU has it and only the browser hides it.
 */
export function shaderF16Reason(adapter: GpuAdapterReport): string {
  const reason = `the WebGPU adapter (${adapter.adapter}) lacks shader-f16, which llama.cpp's WebGPU backend requires`;
  return isNvidiaAdapter(adapter) ? `${reason}. ${nvidiaF16Hint()}` : reason;
}
