import { describe, expect, it } from 'vitest';
import { findModel } from './find-model.js';
import { createMemoryStore } from '../testing/memory-store.js';
import { modelRecordFixture } from '../testing/model-record-fixture.js';

const hub = (quantization: string, createdAt = 0) =>
  modelRecordFixture({
    id: `hf.co/LiquidAI/LFM2-350M-GGUF:${quantization}`,
    source: {
      kind: 'hub',
      repo: 'LiquidAI/LFM2-350M-GGUF',
      revision: 'a'.repeat(40),
      quantization,
      endpoint: 'https://huggingface.co',
    },
    createdAt,
  });

describe('findModel', () => {
  it('finds a pulled hub model by its untagged name, Q4_K_M first, else the nearest level', async () => {
    const store = createMemoryStore([hub('Q8_0', 2), hub('Q4_K_M', 1), hub('Q5_K_M', 3)]);
    expect((await findModel(store, 'hf.co/LiquidAI/LFM2-350M-GGUF')).id).toBe(
      'hf.co/LiquidAI/LFM2-350M-GGUF:Q4_K_M',
    );
    expect((await findModel(store, 'hf.co/liquidai/lfm2-350m-gguf:latest')).id).toBe(
      'hf.co/LiquidAI/LFM2-350M-GGUF:Q4_K_M',
    );
    const without = createMemoryStore([hub('Q8_0'), hub('Q5_K_M')]);
    expect((await findModel(without, 'hf.co/LiquidAI/LFM2-350M-GGUF')).id).toBe(
      'hf.co/LiquidAI/LFM2-350M-GGUF:Q5_K_M',
    );
  });

  it('does not guess for a named level or another repository', async () => {
    const store = createMemoryStore([hub('Q4_K_M')]);
    await expect(findModel(store, 'hf.co/LiquidAI/LFM2-350M-GGUF:Q8_0')).rejects.toMatchObject({
      code: 'model_not_found',
    });
    await expect(findModel(store, 'hf.co/LiquidAI/Other-GGUF')).rejects.toMatchObject({
      code: 'model_not_found',
    });
  });
});
