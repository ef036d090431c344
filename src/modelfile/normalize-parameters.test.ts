import { describe, expect, it } from 'vitest';
import { normalizeParameters } from './normalize-parameters.js';

describe('normalizeParameters', () => {
  it('types numbers, numeric strings and stop lists', () => {
    expect(
      normalizeParameters({
        temperature: 0.3,
        top_k: '50',
        repeat_penalty: 1.05,
        stop: ['<|im_end|>', '<|endoftext|>'],
        seed: null,
      }),
    ).toEqual({
      temperature: 0.3,
      top_k: 50,
      repeat_penalty: 1.05,
      stop: ['<|im_end|>', '<|endoftext|>'],
    });
    expect(normalizeParameters({ stop: 'User:' })).toEqual({ stop: ['User:'] });
  });

  it('names the parameter and the problem', () => {
    expect(() => normalizeParameters({ top_k: 0.5 })).toThrow(
      'parameter top_k must be an integer, got 0.5',
    );
    expect(() => normalizeParameters({ top_p: '2' })).toThrow(
      'parameter top_p must be between 0 and 1, got 2',
    );
    expect(() => normalizeParameters({ stop: [''] })).toThrow('parameter stop must not be empty');
    expect(() => normalizeParameters({ temperature: [1] })).toThrow(
      'parameter temperature must be a number, got a list',
    );
    expect(() => normalizeParameters({ num_gpu: 1 })).toThrow(
      /^parameter num_gpu is an Ollama setting lmtab does not use \(expected one of temperature,/,
    );
    expect(() => normalizeParameters({ warmth: 1 })).toThrow(
      /^parameter warmth is not a parameter lmtab knows/,
    );
  });
});
