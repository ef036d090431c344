import { describe, expect, it } from 'vitest';
import { projectorFileFor } from './projector-file-for.js';

describe('projectorFileFor', () => {
  it.each([
    [
      '/m/tiny-lfm2-vl.gguf',
      ['tiny-lfm2-vl.gguf', 'mmproj-tiny-lfm2-vl.gguf', 'tiny-lfm2.gguf'],
      'mmproj-tiny-lfm2-vl.gguf',
    ],
    [
      '/m/LFM2-VL-450M-Q4_K_M.gguf',
      ['LFM2-VL-450M-Q4_K_M.gguf', 'LFM2-VL-450M-Q8_0.gguf', 'mmproj-LFM2-VL-450M-F16.gguf'],
      'mmproj-LFM2-VL-450M-F16.gguf',
    ],
    ['/m/model.gguf', ['model.gguf', 'mmproj-model-f16.gguf'], 'mmproj-model-f16.gguf'],
    ['/m/vision.gguf', ['vision.gguf', 'mmproj-f16.gguf'], 'mmproj-f16.gguf'],
    ['/m/text.gguf', ['text.gguf', 'other.gguf', 'mmproj-other.gguf'], undefined],
    ['/m/text.gguf', ['text.gguf', 'notes.txt'], undefined],
  ])('%s in %j -> %s', (path, names, expected) =>
    expect(projectorFileFor(path, names)).toBe(expected),
  );
});
