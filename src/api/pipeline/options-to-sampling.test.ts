import { describe, expect, it } from 'vitest';
import { optionsToSampling } from './options-to-sampling.js';

describe('optionsToSampling', () => {
  it('converts Ollama names to engine names, keeping zeros', () => {
    expect(
      optionsToSampling({
        temperature: 0,
        top_k: 40,
        top_p: 0.9,
        min_p: 0.05,
        repeat_penalty: 1.1,
        presence_penalty: 0.5,
        frequency_penalty: 0.25,
        seed: 0,
        num_predict: 0,
        stop: ['\n', 'user:'],
        num_ctx: 1024,
        mirostat: 1,
      }),
    ).toEqual({
      sampling: {
        temperature: 0,
        topK: 40,
        topP: 0.9,
        minP: 0.05,
        repeatPenalty: 1.1,
        presencePenalty: 0.5,
        frequencyPenalty: 0.25,
        seed: 0,
        maxTokens: 0,
        stop: ['\n', 'user:'],
      },
      contextLength: 1024,
    });
  });

  it('reads Modelfile strings and treats a negative num_predict as no limit', () => {
    expect(
      optionsToSampling({ temperature: '0.7', num_predict: -2, stop: 'END', top_k: 'many' }),
    ).toEqual({
      sampling: { temperature: 0.7, stop: ['END'] },
    });
  });
});
