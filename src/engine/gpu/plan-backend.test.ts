import { describe, expect, it } from 'vitest';
import { confirmBackend, planBackend } from './plan-backend.js';

const gpu = {
  cores: 8,
  crossOriginIsolated: true,
  adapter: 'nvidia ampere',
  shaderF16: true,
  features: ['shader-f16'],
};

describe('planBackend', () => {
  it('puts every layer on a WebGPU adapter that has shader-f16', () => {
    expect(planBackend(gpu, {}, 'wllama')).toEqual({
      engine: 'wllama',
      backend: 'webgpu',
      adapter: 'nvidia ampere',
      gpuLayers: 999,
      threads: 8,
      crossOriginIsolated: true,
      gpu: { adapter: 'nvidia ampere', features: ['shader-f16'] },
    });
  });

  it('keeps a chosen GPU layer count and thread count', () => {
    expect(planBackend(gpu, { gpuLayers: 4, threads: 2 }, 'wllama')).toMatchObject({
      gpuLayers: 4,
      threads: 2,
    });
  });

  it('runs on WebAssembly, saying why, on an adapter that failed the f16 check', () => {
    const reason =
      "WebGPU failed lmtab's f16 check: a compute shader gave [0, 0, 0, 0] where [1.5, 4.5, 9.5, 16.5] is right";
    expect(planBackend({ ...gpu, f16CheckFailure: reason }, {}, 'wllama')).toMatchObject({
      backend: 'wasm',
      gpuLayers: 0,
      fallbackReason: reason,
      gpu: { adapter: 'nvidia ampere' },
    });
  });

  it('runs on WebAssembly when GPU layers are 0', () => {
    expect(planBackend(gpu, { gpuLayers: 0 }, 'wllama')).toMatchObject({
      backend: 'wasm',
      gpuLayers: 0,
      fallbackReason: 'GPU layers are set to 0 (CPU only)',
    });
  });

  it('runs on WebAssembly without an adapter, or with one lacking shader-f16', () => {
    expect(
      planBackend(
        { cores: 2, crossOriginIsolated: true, noAdapterReason: 'no WebGPU adapter is available' },
        {},
        'wllama',
      ),
    ).toMatchObject({ backend: 'wasm', fallbackReason: 'no WebGPU adapter is available' });
    const swiftshader = planBackend(
      { ...gpu, adapter: 'google swiftshader', shaderF16: false, features: ['subgroups'] },
      {},
      'wllama',
    );
    expect(swiftshader.fallbackReason).toContain('lacks shader-f16');
    // The adapter stays on offer for web-llm, which runs f32 models without shader-f16.
    expect(swiftshader.gpu).toEqual({ adapter: 'google swiftshader', features: ['subgroups'] });
  });

  it('uses one thread without cross-origin isolation', () => {
    expect(
      planBackend({ ...gpu, crossOriginIsolated: false, cores: 1 }, { threads: 8 }, 'wllama')
        .threads,
    ).toBe(1);
  });
});

describe('confirmBackend', () => {
  const planned = planBackend(gpu, {}, 'wllama');

  it('reports the layers llama.cpp offloaded', () => {
    expect(confirmBackend(planned, ['load_tensors: offloaded 17/17 layers to GPU']).gpuLayers).toBe(
      17,
    );
  });

  it('reports WebAssembly when nothing was offloaded', () => {
    const confirmed = confirmBackend(planned, [
      'load_tensors:          CPU model buffer size =     0.36 MiB',
    ]);
    expect(confirmed).toMatchObject({ backend: 'wasm', gpuLayers: 0 });
    expect(confirmed.fallbackReason).toContain('registered no WebGPU device');
  });
});
