import { describe, expect, it } from 'vitest';
import { cpuWorkerResources, kernelsFromLog } from './cpu-build.js';
import { kernelLogLines } from './kernel-log-lines.js';
import type { EngineInfo } from '../engine.js';

const cpuPlan: EngineInfo = {
  engine: 'wllama',
  backend: 'wasm',
  threads: 2,
  gpuLayers: 0,
  crossOriginIsolated: true,
  fallbackReason: 'no WebGPU adapter is available',
};
const gpuPlan: EngineInfo = { ...cpuPlan, backend: 'webgpu', gpuLayers: 999, adapter: 'gpu' };
const cpuBuild = {
  glueUrl: 'https://app.test/assets/lmtab-cpu.js',
  wasmUrl: 'https://app.test/assets/lmtab-cpu.wasm',
  mediaMarker: '<__media_lmtab_test__>',
};

describe('cpuWorkerResources', () => {
  it("hands wllama's worker lmtab's CPU build (wasm32 glue and wasm) for a CPU plan", () => {
    expect(cpuWorkerResources(cpuPlan, cpuBuild)).toEqual({
      wasmPath: cpuBuild.wasmUrl,
      jsPath: cpuBuild.glueUrl,
      compat: true,
      noWebGPU: true,
    });
  });

  it("leaves wllama's stock build for a WebGPU plan, and when no CPU build is given", () => {
    expect(cpuWorkerResources(gpuPlan, cpuBuild)).toBeUndefined();
    expect(cpuWorkerResources(cpuPlan, undefined)).toBeUndefined();
  });
});

describe('kernelsFromLog', () => {
  it("reads which K-quant kernels run from the glue's line, the same text the glue writes", async () => {
    const { kernelLogLines: written } = await import('../../../wasm/glue-patches.mjs');
    expect(kernelLogLines).toEqual(written);
    expect(kernelsFromLog(['llama_model_load: ...', written.relaxed])).toBe('relaxed-simd');
    expect(kernelsFromLog([written.ggml])).toBe('simd128');
    expect(kernelsFromLog(['llama_model_load: ...'])).toBeUndefined();
  });
});
