import { describe, expect, it } from 'vitest';
import { modelRecordFixture } from '../api/testing/model-record-fixture.js';
import { isHubPull } from './model-record.js';

const pull = modelRecordFixture({
  id: 'hf.co/LiquidAI/LFM2-350M-GGUF:Q4_K_M',
  source: {
    kind: 'hub',
    repo: 'LiquidAI/LFM2-350M-GGUF',
    revision: 'main',
    quantization: 'Q4_K_M',
    endpoint: 'https://huggingface.co',
  },
});

describe('isHubPull', () => {
  it('is a pull of the repository in any case, not a custom model made from it', () => {
    expect(isHubPull(pull, 'liquidai/lfm2-350m-gguf')).toBe(true);
    expect(isHubPull(pull, 'LiquidAI/LFM2-700M-GGUF')).toBe(false);
    const pirate = {
      ...pull,
      id: 'pirate',
      customization: { from: pull.id, parameters: {}, messages: [] },
    };
    expect(isHubPull(pirate, 'LiquidAI/LFM2-350M-GGUF')).toBe(false);
    expect(isHubPull(modelRecordFixture(), 'LiquidAI/LFM2-350M-GGUF')).toBe(false);
  });
});
