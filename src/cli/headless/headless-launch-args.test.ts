import { describe, expect, it } from 'vitest';
import { engineAdapterLine } from '../format/engine-adapter-line.js';
import { headlessLaunchArgs } from './headless-engine.js';

describe('headlessLaunchArgs', () => {
  it('passes the NVIDIA f16 toggle and the Vulkan switches only on an NVIDIA machine', () => {
    const desktop = headlessLaunchArgs({ container: false, nvidia: false, extra: [] });
    expect(desktop).toEqual([
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ]);
    const pod = headlessLaunchArgs({
      container: true,
      nvidia: true,
      // What a cloud GPU pod's LMTAB_CHROMIUM_ARGS holds besides.
      extra: ['--no-sandbox', '--enable-features=Vulkan', '--disable-vulkan-surface'],
    });
    expect(pod).toEqual([
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--no-sandbox',
      '--disable-dev-shm-usage',
      '--enable-dawn-features=vulkan_enable_f16_on_nvidia',
      '--use-angle=vulkan',
      '--enable-features=Vulkan,WebGPU',
      '--ignore-gpu-blocklist',
      '--enable-unsafe-webgpu',
      '--disable-vulkan-surface',
    ]);
  });
});

describe('engineAdapterLine', () => {
  it('names the adapter, whether it has shader-f16, and where models run', () => {
    expect(
      engineAdapterLine({
        backend: 'webgpu',
        gpu: {
          adapter: 'nvidia ada-lovelace NVIDIA L4',
          vendor: 'nvidia',
          architecture: 'ada-lovelace',
          description: 'NVIDIA L4',
          features: ['shader-f16', 'subgroups'],
          limits: { maxBufferSize: 2 ** 32 },
        },
      }),
    ).toBe(
      "headless engine's WebGPU adapter: nvidia ada-lovelace NVIDIA L4 (shader-f16: yes, maxBufferSize 4,096 MiB); GGUF models run on WebGPU",
    );
    expect(
      engineAdapterLine({
        backend: 'wasm',
        fallbackReason: 'the WebGPU adapter (google swiftshader) lacks shader-f16',
        gpu: {
          adapter: 'google swiftshader',
          vendor: 'google',
          architecture: 'swiftshader',
          features: [],
        },
      }),
    ).toBe(
      "headless engine's WebGPU adapter: google swiftshader (shader-f16: no); GGUF models run on the CPU: the WebGPU adapter (google swiftshader) lacks shader-f16",
    );
  });

  it('says so when there is no adapter', () => {
    expect(
      engineAdapterLine({ backend: 'wasm', fallbackReason: 'no WebGPU adapter is available' }),
    ).toBe(
      'headless engine has no WebGPU adapter; GGUF models run on the CPU: no WebGPU adapter is available',
    );
  });
});
