import { describe, expect, test } from 'vitest';
import { mergeParameters } from './merge-parameters.js';

describe('mergeParameters', () => {
  test("a request's num_predict -1 replaces the Modelfile's limit", () => {
    const merged = mergeParameters({ num_predict: 100, temperature: 0.3 }, { num_predict: -1 });
    expect(merged).toStrictEqual({ num_predict: -1, temperature: 0.3 });
  });

  test('request options win by name, 0 and "" included', () => {
    const merged = mergeParameters({ temperature: 0.3, stop: ['a'] }, { temperature: 0, stop: [] });
    expect(merged).toStrictEqual({ temperature: 0, stop: [] });
  });
});
