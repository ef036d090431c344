import { describe, expect, it } from 'vitest';
import { describeAdapter } from './gpu-adapter.js';
import { planBackend } from './plan-backend.js';
import { shaderF16Reason } from './shader-f16-reason.js';

const nvidia = describeAdapter({
  info: { vendor: 'nvidia', architecture: 'ampere', description: 'NVIDIA GeForce RTX 3080' },
  features: new Set(['subgroups', 'timestamp-query']),
  limits: { maxBufferSize: 2 ** 32, maxStorageBufferBindingSize: 2 ** 31 },
});

describe('the reason WebGPU is not used when the adapter lacks shader-f16', () => {
  it('names the Chrome switches that give NVIDIA adapters shader-f16', () => {
    const reason = shaderF16Reason(nvidia);
    expect(reason).toBe(
      "the WebGPU adapter (nvidia ampere NVIDIA GeForce RTX 3080) lacks shader-f16, which llama.cpp's WebGPU backend requires. " +
        "On NVIDIA's Vulkan driver Chrome hides shader-f16 unless started with " +
        '--enable-dawn-features=vulkan_enable_f16_on_nvidia (on Linux together with ' +
        '--use-angle=vulkan --enable-features=Vulkan,WebGPU --ignore-gpu-blocklist); restart ' +
        'Chrome with those switches and WebGPU runs on this GPU',
    );
  });

  it('is the fallback reason the engine reports for such an adapter', () => {
    const planned = planBackend(
      {
        cores: 4,
        crossOriginIsolated: true,
        adapter: nvidia.adapter,
        shaderF16: false,
        features: nvidia.features,
        gpu: nvidia,
      },
      {},
      'wllama',
    );
    expect(planned).toMatchObject({ backend: 'wasm', gpuLayers: 0, gpu: nvidia });
    expect(planned.fallbackReason).toContain('--enable-dawn-features=vulkan_enable_f16_on_nvidia');
    expect(planned.fallbackReason).toContain('--use-angle=vulkan');
  });

  it('finds NVIDIA by the description when the vendor is hidden', () => {
    const hidden = describeAdapter({ info: { description: 'NVIDIA L4' }, features: new Set() });
    expect(shaderF16Reason(hidden)).toContain('vulkan_enable_f16_on_nvidia');
  });

  it('gives other adapters no switch to try', () => {
    const swiftshader = describeAdapter({
      info: { vendor: 'google', architecture: 'swiftshader' },
      features: new Set(['subgroups']),
    });
    expect(shaderF16Reason(swiftshader)).toBe(
      "the WebGPU adapter (google swiftshader) lacks shader-f16, which llama.cpp's WebGPU backend requires",
    );
  });
});
