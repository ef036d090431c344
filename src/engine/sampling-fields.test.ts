import { describe, expect, it } from 'vitest';
import { samplingFields } from './sampling-fields.js';

describe('samplingFields', () => {
  const every = {
    temperature: 0.7,
    topP: 0.9,
    topK: 40,
    minP: 0.05,
    repeatPenalty: 1.1,
    frequencyPenalty: 0.5,
    presencePenalty: 0.25,
    seed: 7,
    stop: ['\n\n'],
    maxTokens: 64,
    ignoreEos: false,
  };

  it('names every option as llama-server does, false and zero included', () => {
    expect(samplingFields({ ...every, temperature: 0 })).toEqual({
      temperature: 0,
      top_p: 0.9,
      top_k: 40,
      min_p: 0.05,
      repeat_penalty: 1.1,
      frequency_penalty: 0.5,
      presence_penalty: 0.25,
      seed: 7,
      stop: ['\n\n'],
      max_tokens: 64,
      ignore_eos: false,
    });
  });

  it('leaves out what is unset', () => {
    expect(samplingFields({ temperature: 1, seed: undefined })).toEqual({ temperature: 1 });
  });

  it("renames and omits as an engine's spelling says (web-llm's)", () => {
    const fields = samplingFields(every, {
      rename: { repeatPenalty: 'repetition_penalty' },
      omit: ['topK', 'minP'],
    });
    expect(fields).toMatchObject({ repetition_penalty: 1.1 });
    expect(Object.keys(fields)).not.toContain('repeat_penalty');
    expect(Object.keys(fields)).not.toContain('top_k');
    expect(Object.keys(fields)).not.toContain('min_p');
  });
});
