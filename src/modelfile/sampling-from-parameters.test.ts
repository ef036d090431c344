import { describe, expect, test } from 'vitest';
import { LmtabError } from '../errors/index.js';
import { parseModelfile } from './parse-modelfile.js';
import {
  mergeParameters,
  mergeSettings,
  samplingFromParameters,
} from './sampling-from-parameters.js';

describe('samplingFromParameters', () => {
  test('maps every Modelfile parameter to its engine field', () => {
    const { parameters } = parseModelfile(
      [
        'FROM m',
        'PARAMETER temperature 0.3',
        'PARAMETER top_k 50',
        'PARAMETER top_p 0.9',
        'PARAMETER min_p 0.05',
        'PARAMETER repeat_penalty 1.05',
        'PARAMETER repeat_last_n 64',
        'PARAMETER presence_penalty 0.5',
        'PARAMETER frequency_penalty -0.5',
        'PARAMETER seed 42',
        'PARAMETER num_predict 128',
        'PARAMETER num_ctx 8192',
        'PARAMETER stop "<|im_end|>"',
        'PARAMETER stop "<|endoftext|>"',
      ].join('\n'),
    );
    expect(samplingFromParameters(parameters)).toStrictEqual({
      sampling: {
        temperature: 0.3,
        topK: 50,
        topP: 0.9,
        minP: 0.05,
        repeatPenalty: 1.05,
        presencePenalty: 0.5,
        frequencyPenalty: -0.5,
        seed: 42,
        maxTokens: 128,
        stop: ['<|im_end|>', '<|endoftext|>'],
      },
      contextLength: 8192,
    });
  });

  test.each([
    [-1, {}],
    [-2, {}],
    [0, { maxTokens: 0 }],
  ])('num_predict %i maps to %j', (numPredict, sampling) => {
    expect(samplingFromParameters({ num_predict: numPredict })).toStrictEqual({ sampling });
  });

  test('keeps meaningful zeros and ignores names lmtab does not use', () => {
    expect(
      samplingFromParameters({ temperature: 0, top_k: 0, seed: 0, num_thread: 8, mirostat: 2 }),
    ).toStrictEqual({ sampling: { temperature: 0, topK: 0, seed: 0 } });
  });

  test('a single stop string becomes a list', () => {
    expect(samplingFromParameters({ stop: '###' })).toStrictEqual({ sampling: { stop: ['###'] } });
  });

  test.each([
    [{ temperature: '0.3' }, 'parameter temperature must be a number, got "0.3"'],
    [{ top_k: 1.5 }, 'parameter top_k must be an integer, got 1.5'],
    [{ num_ctx: 0 }, 'parameter num_ctx must be at least 1, got 0'],
    [{ stop: ['ok', ''] }, 'parameter stop must not be empty'],
    [{ seed: [1, 2] }, 'parameter seed must be a single value, got a list'],
  ])('%j is refused', (parameters, message) => {
    const map = () =>
      samplingFromParameters(parameters as Record<string, number | string | string[]>);
    expect(map).toThrow(LmtabError);
    expect(map).toThrow(message);
  });
});

describe('mergeSettings', () => {
  const defaults = {
    sampling: { temperature: 0.3, topK: 50, stop: ['<|im_end|>'], maxTokens: 100 },
    contextLength: 4096,
  };

  test('the request wins field by field; absent fields fall back to the Modelfile', () => {
    expect(
      mergeSettings(defaults, { sampling: { temperature: 0.9, seed: 7 }, contextLength: 8192 }),
    ).toStrictEqual({
      sampling: { temperature: 0.9, topK: 50, stop: ['<|im_end|>'], maxTokens: 100, seed: 7 },
      contextLength: 8192,
    });
  });

  test('a meaningful 0, "" or empty list from the request still wins', () => {
    const merged = mergeSettings(defaults, {
      sampling: { temperature: 0, topK: 0, stop: [], maxTokens: 0, seed: undefined },
    });
    expect(merged).toStrictEqual({
      sampling: { temperature: 0, topK: 0, stop: [], maxTokens: 0 },
      contextLength: 4096,
    });
  });
});

describe('mergeParameters', () => {
  test("a request's num_predict -1 lifts the Modelfile's limit", () => {
    const merged = mergeParameters({ num_predict: 100, temperature: 0.3 }, { num_predict: -1 });
    expect(merged).toStrictEqual({ num_predict: -1, temperature: 0.3 });
    expect(samplingFromParameters(merged)).toStrictEqual({ sampling: { temperature: 0.3 } });
  });

  test('request options win by name, 0 and "" included', () => {
    const merged = mergeParameters({ temperature: 0.3, stop: ['a'] }, { temperature: 0, stop: [] });
    expect(merged).toStrictEqual({ temperature: 0, stop: [] });
  });
});
