import { describe, expect, it } from 'vitest';
import {
  COMMON_QUANTIZATIONS,
  compareQuantizations,
  nearestQuantization,
  normalizeQuantization,
  parseGgufFileName,
  parseQuantization,
  quantizationNote,
  sortQuantizations,
} from './quantization.js';

describe('parseQuantization', () => {
  it.each([
    ['LFM2-350M-Q4_K_M.gguf', 'Q4_K_M'],
    ['model-q4_k_m.gguf', 'Q4_K_M'],
    ['tinyllama-1.1b-chat-v1.0.Q8_0.gguf', 'Q8_0'],
    ['Llama-3.2-1B-Instruct-IQ4_XS.gguf', 'IQ4_XS'],
    ['Qwen2.5-0.5B-Instruct-F16.gguf', 'F16'],
    ['gemma-3-1b-it-BF16.gguf', 'BF16'],
    ['ggml-model-fp16.gguf', 'F16'],
    ['Phi-3.5-mini-instruct-Q6_K.gguf', 'Q6_K'],
    ['Model.i1-IQ3_M.gguf', 'IQ3_M'],
    ['Qwen3-8B-UD-Q4_K_XL.gguf', 'UD-Q4_K_XL'],
    ['Model-Q4_0_4_4.gguf', 'Q4_0_4_4'],
    ['gpt-oss-20b-MXFP4.gguf', 'MXFP4'],
    ['Model-Q8_0-00001-of-00003.gguf', 'Q8_0'],
    ['Q8_0/Model-00002-of-00003.gguf', 'Q8_0'],
    ['Mistral-7B-v0.3-Q2_K.gguf', 'Q2_K'],
    ['Model-Q3_K_M.gguf', 'Q3_K_M'],
  ])('%s -> %s', (name, level) => {
    expect(parseQuantization(name)).toBe(level);
  });

  it('finds nothing in names without a level', () => {
    expect(parseQuantization('model.gguf')).toBeUndefined();
    expect(parseQuantization('QF16X-7B.gguf')).toBeUndefined();
  });

  it('prefers the last level in a name', () => {
    expect(parseQuantization('Model-F16-to-Q4_K_M.gguf')).toBe('Q4_K_M');
  });
});

describe('parseGgufFileName', () => {
  it('reads split parts and the grouping stem', () => {
    expect(parseGgufFileName('big/Model-Q8_0-00002-of-00003.gguf')).toEqual({
      quantization: 'Q8_0',
      stem: 'Model-Q8_0',
      part: 2,
      parts: 3,
      projector: false,
    });
  });

  it('recognises vision projectors', () => {
    expect(parseGgufFileName('mmproj-SmolVLM-256M-F16.gguf')).toMatchObject({
      projector: true,
      quantization: 'F16',
    });
    expect(parseGgufFileName('Model.mmproj-Q8_0.gguf').projector).toBe(true);
    expect(parseGgufFileName('Model-Q4_K_M.gguf').projector).toBe(false);
  });
});

describe('ordering', () => {
  it('keeps the common list in size order', () => {
    expect(sortQuantizations([...COMMON_QUANTIZATIONS].reverse())).toEqual([
      ...COMMON_QUANTIZATIONS,
    ]);
  });

  it('places other levels by size, unknown labels last', () => {
    expect(
      sortQuantizations(['model', 'Q8_0', 'IQ4_XS', 'BF16', 'F16', 'Q4_K_M', 'Q4_K_S', 'IQ2_M']),
    ).toEqual(['IQ2_M', 'IQ4_XS', 'Q4_K_S', 'Q4_K_M', 'Q8_0', 'F16', 'BF16', 'model']);
    expect(compareQuantizations('Q4_K_M', 'UD-Q4_K_M')).toBeLessThan(0);
  });

  it('normalizes typed levels', () => {
    expect(normalizeQuantization(' q4_k_m ')).toBe('Q4_K_M');
    expect(normalizeQuantization('fp16')).toBe('F16');
    expect(normalizeQuantization('ud-q4_k_xl')).toBe('UD-Q4_K_XL');
  });
});

describe('nearestQuantization', () => {
  it('returns the wanted level when present', () => {
    expect(nearestQuantization('Q4_K_M', ['Q2_K', 'Q4_K_M', 'Q8_0'])).toBe('Q4_K_M');
  });

  it('takes the nearest level by bits per weight', () => {
    expect(nearestQuantization('Q4_K_M', ['Q2_K', 'Q4_K_S', 'Q8_0'])).toBe('Q4_K_S');
    expect(nearestQuantization('Q4_K_M', ['Q3_K_M', 'Q5_K_M'])).toBe('Q5_K_M');
    expect(nearestQuantization('Q4_K_M', ['Q8_0', 'F16'])).toBe('Q8_0');
    expect(nearestQuantization('Q4_K_M', ['Q2_K'])).toBe('Q2_K');
  });

  it('measures distance as a ratio of sizes', () => {
    expect(nearestQuantization('Q6_K', ['Q4_K_M', 'Q8_0'])).toBe('Q8_0');
    expect(nearestQuantization('Q4_K_M', ['Q4_0', 'Q8_0'])).toBe('Q4_0');
  });

  it('breaks ties by size, then by the common list', () => {
    expect(nearestQuantization('Q8_0', ['BF16', 'F16'])).toBe('F16');
    expect(nearestQuantization('Q4_K_M', ['Q4_K', 'Q4_K_M'])).toBe('Q4_K_M');
  });

  it('places levels it has no figure for by their bit count', () => {
    expect(nearestQuantization('Q4_K_M', ['Q3_NEW', 'Q7_NEW'])).toBe('Q3_NEW');
  });

  it('ignores labels it cannot place', () => {
    expect(nearestQuantization('Q4_K_M', ['model'])).toBeUndefined();
    expect(nearestQuantization('model', ['Q4_K_M'])).toBeUndefined();
  });
});

describe('quantizationNote', () => {
  it('says Q4 is faster and Q6/Q8 better', () => {
    expect(quantizationNote('Q4_K_M')).toMatch(/recommended/i);
    expect(quantizationNote('Q4_0')).toMatch(/fast/i);
    expect(quantizationNote('Q6_K')).toMatch(/better quality/i);
    expect(quantizationNote('Q8_0')).toMatch(/quality/i);
    expect(quantizationNote('IQ3_XXS')).toMatch(/importance/i);
    expect(quantizationNote('model')).toMatch(/unknown/i);
  });
});
