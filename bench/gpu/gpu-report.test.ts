import { describe, expect, test } from 'vitest';
import {
  gpuRunProblems,
  modelLabel,
  summarizeGpuRun,
  type GpuRun,
  type WebgpuModelRun,
} from './gpu-report.js';

const nvidia = {
  vendor: 'nvidia',
  architecture: 'ada-lovelace',
  description: 'NVIDIA L4',
  features: ['shader-f16', 'subgroups'],
};

function model(file: string, onGpu: boolean): WebgpuModelRun {
  return {
    file,
    bytes: 1,
    info: onGpu
      ? { backend: 'webgpu', gpuLayers: 17, build: 'wllama 3.13.0' }
      : {
          backend: 'wasm',
          gpuLayers: 0,
          build: 'wllama 3.13.0',
          fallbackReason: 'the WebGPU adapter (NVIDIA L4) lacks shader-f16',
        },
    offload: onGpu
      ? {
          adapter: { vendor: 'nvidia', architecture: '', description: 'NVIDIA L4' },
          layers: { offloaded: 17, total: 17 },
          graph: { nodes: 600, splits: 2 },
        }
      : {},
    loadMs: 900,
    prompt: { tokens: onGpu ? 512 : 64, tokPerSec: onGpu ? [2000, 2100, 1900] : [20] },
    decode: { tokens: onGpu ? 128 : 16, tokPerSec: onGpu ? [100, 110, 90] : [5] },
  };
}

function run(fallbackOnGpu = false): GpuRun {
  const file = 'lfm2-350m-q4_k_m.gguf';
  return {
    system: {
      date: '2026-11-27T10:00:00.000Z',
      cpu: 'AMD EPYC 7B13',
      cores: 16,
      gpus: [{ name: 'NVIDIA L4', driver: '550.90.07', memory: '23034 MiB' }],
      kernel: 'Linux 6.1',
      dryRun: false,
      bundle: { wllama: '3.13.0', node: '24.21.0', dawn: '0.6.2', llamaCpp: 'de3ff81' },
    },
    nativeVulkan: [
      { model_filename: `/x/${file}`, n_prompt: 512, n_gen: 0, avg_ts: 8000, stddev_ts: 1 },
      { model_filename: `/x/${file}`, n_prompt: 0, n_gen: 128, avg_ts: 200, stddev_ts: 1 },
    ],
    vulkanDevice: 'NVIDIA L4 (NVIDIA)',
    webgpu: {
      dawnFlags: ['backend=vulkan'],
      hiddenFeatures: [],
      adapter: nvidia,
      runs: [model(file, true)],
    },
    fallback: {
      dawnFlags: ['backend=vulkan'],
      hiddenFeatures: [],
      adapter: { ...nvidia, features: ['subgroups'] },
      runs: [model(file, fallbackOnGpu)],
    },
  };
}

describe('the GPU bench report', () => {
  test('names the card, driver and host, and labels the WebGPU row "in Node + Dawn"', () => {
    const summary = summarizeGpuRun(run());
    expect(summary).toContain('NVIDIA L4 (driver 550.90.07, 23034 MiB); host AMD EPYC 7B13');
    expect(summary).toContain('lmtab WebGPU in Node + Dawn');
    expect(summary).not.toMatch(/chrome/i);
    expect(summary).toContain(
      '| LFM2-350M-shaped Q4_K_M | 8000 / 200 | 2000 / 100 | 25% / 50% | 17/17, 2 splits |',
    );
    expect(summary).toMatch(/Without `vulkan_enable_f16_on_nvidia`: lmtab runs .* on the CPU/);
    expect(gpuRunProblems(run())).toEqual([]);
  });

  test('an NVIDIA run without the toggle that stays on WebGPU, or a partial offload, is a problem', () => {
    expect(gpuRunProblems(run(true))).toEqual([
      'lfm2-350m-q4_k_m.gguf, WebGPU without the toggle: expected the CPU fallback, got webgpu with 17 layers offloaded',
    ]);
    const partial = run();
    partial.webgpu.runs[0]!.problem = 'llama.cpp offloaded 9 of 17 layers to the GPU';
    expect(gpuRunProblems(partial)).toEqual([
      'lfm2-350m-q4_k_m.gguf, WebGPU with the toggle: llama.cpp offloaded 9 of 17 layers to the GPU',
    ]);
    expect(summarizeGpuRun(partial)).toContain('Problems:');
    const noDevice = run();
    delete noDevice.vulkanDevice;
    expect(gpuRunProblems(noDevice)).toEqual([
      'native llama-bench found no Vulkan device (it ran on the CPU)',
    ]);
  });

  test('labels the models by shape and type', () => {
    expect(modelLabel('/m/lfm2-1.2b-q8_0.gguf')).toBe('LFM2-1.2B-shaped Q8_0');
    expect(modelLabel('lfm2-tiny-q4_k_m.gguf')).toBe('tiny LFM2 Q4_K_M');
  });
});
