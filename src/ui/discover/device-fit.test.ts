import { describe, expect, it } from 'vitest';
import type { EngineInfo } from '../../engine/index.js';
import { choiceFiles, deviceFit, engineGpu } from './device-fit.js';

const info: EngineInfo = {
  engine: 'wllama',
  backend: 'wasm',
  threads: 2,
  gpuLayers: 0,
  crossOriginIsolated: true,
};

describe('deviceFit', () => {
  it('fits a small model on a device with room, saying what each path needs', () => {
    const fit = deviceFit([229e6], { memoryGb: 8, freeStorage: 10e9, gpu: true });
    expect(fit).toMatchObject({ storage: 'yes', level: 'yes', text: 'Fits this device.' });
    expect(fit.blocked).toBeUndefined();
    expect(fit.cpu.fits).toBe('yes');
    expect(fit.cpu.text).toMatch(
      /^CPU: fits: needs 411\.1 MB \(229\.0 MB of weights and about 182\.1 MB/,
    );
    expect(fit.gpu).toMatchObject({ fits: 'unknown' });
    expect(fit.gpu.text).toContain('needs about 229.0 MB of GPU memory');
  });

  it('says a model over 4 GiB runs only on a GPU without memory64, and keeps it downloadable', () => {
    const fit = deviceFit([5.04e9], { memoryGb: 8, freeStorage: 10e9, memory64: false });
    expect(fit).toMatchObject({ level: 'tight', storage: 'yes' });
    expect(fit.text).toBe(
      'Runs only on a GPU with enough memory: too large for this browser’s CPU engine.',
    );
    expect(fit.memoryText).toBe(fit.text);
    expect(fit.cpu.text).toMatch(/^CPU: does not fit: a file of 5\.0 GB;/);
    expect(fit.gpu.text).toContain('5.0 GB of GPU memory');
    expect(fit.blocked).toBeUndefined();
  });

  it('blocks a model neither path can hold, and names the storage that is short', () => {
    const fit = deviceFit([4.6e9, 0.6e9], {
      memoryGb: 4,
      freeStorage: 1e9,
      gpu: false,
      memory64: false,
    });
    expect(fit).toMatchObject({ level: 'no', storage: 'no' });
    expect(fit.blocked).toBe(
      'Cannot run on this device: neither the CPU engine nor a GPU can hold it.',
    );
    expect(fit.text).toBe(`${fit.blocked} Needs 5.2 GB of storage; 1.0 GB free.`);
    expect(fit.gpu.text).toBe('GPU: no WebGPU adapter llama.cpp can use in this browser.');
  });

  it('says a model over 4 GiB runs on the memory64 CPU build where the browser has one', () => {
    const fit = deviceFit([5.04e9], { memoryGb: 8, freeStorage: 10e9, memory64: true });
    expect(fit).toMatchObject({ level: 'tight', storage: 'yes' });
    expect(fit.cpu.build).toBe('memory64');
    expect(fit.text).toBe(
      'Past 4 GiB: runs on the CPU with wllama’s memory64 build, whose kernels are slower.',
    );
  });

  it('is not sure where the device reports less memory than the CPU engine needs', () => {
    const fit = deviceFit([1.5e9], { memoryGb: 1 });
    expect(fit).toMatchObject({ level: 'tight', storage: 'unknown' });
    expect(fit.text).toBe('May not fit this device’s memory.');
    expect(fit.cpu.text).toContain('this device reports about 1.0 GB of memory');
  });

  it('says the memory fits when the browser tells nothing of storage', () => {
    expect(deviceFit([1e9], {})).toMatchObject({
      level: 'yes',
      storage: 'unknown',
      text: 'Fits this device’s memory.',
    });
  });
});

describe('engineGpu', () => {
  it('reads whether the engine has an adapter llama.cpp can use', () => {
    expect(engineGpu(undefined)).toBeUndefined();
    const adapter = { adapter: 'Test GPU', features: ['shader-f16', 'subgroups'] };
    expect(engineGpu({ ...info, backend: 'webgpu', gpuLayers: 17, gpu: adapter })).toBe(true);
    // CPU only by setting: the adapter is still there for a later load.
    expect(engineGpu({ ...info, fallbackReason: 'GPU layers are set to 0', gpu: adapter })).toBe(
      true,
    );
    expect(engineGpu({ ...info, gpu: { adapter: 'Old GPU', features: [] } })).toBe(false);
    expect(engineGpu({ ...info, fallbackReason: 'this browser has no WebGPU' })).toBe(false);
    expect(engineGpu(info)).toBeUndefined();
  });
});

describe('choiceFiles', () => {
  it('lists the model parts, then the projector', () => {
    const file = (path: string, size: number) => ({ path, size });
    expect(
      choiceFiles({
        quantization: 'Q4_K_M',
        files: [file('a-00001-of-00002.gguf', 3e9), file('a-00002-of-00002.gguf', 2e9)],
        size: 5e9,
        downloadSize: 5.6e9,
        recommended: true,
        note: '',
        projector: file('mmproj-a-F16.gguf', 0.6e9),
      }),
    ).toEqual([3e9, 2e9, 0.6e9]);
  });
});
