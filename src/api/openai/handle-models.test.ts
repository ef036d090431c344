import { describe, expect, it } from 'vitest';
import { modelRecordFixture } from '../testing/model-record-fixture.js';
import { routerHarness } from '../testing/router-harness.js';

const hubModel = modelRecordFixture({
  id: 'hf.co/LiquidAI/LFM2-1.2B-GGUF:Q4_K_M',
  createdAt: Date.UTC(2026, 10, 20),
});
const downloading = modelRecordFixture({
  id: 'half',
  files: [{ fileId: 'h', name: 'h.gguf', size: 10, chunkSize: 5, chunks: 1, complete: false }],
});

describe('GET /v1/models', () => {
  it('lists the complete stored models, newest first', async () => {
    const { get } = routerHarness({ records: [hubModel, modelRecordFixture(), downloading] });
    const response = await get('/v1/models');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      object: 'list',
      data: [
        { id: 'lfm2-350m', object: 'model', created: 1_795_262_400, owned_by: 'lmtab' },
        { id: hubModel.id, object: 'model', created: 1_795_132_800, owned_by: 'lmtab' },
      ],
    });
  });
});

describe('GET /v1/models/{id}', () => {
  it('finds a model whose id holds slashes and a colon', async () => {
    const { get } = routerHarness({ records: [hubModel] });
    const response = await get('/v1/models/hf.co/LiquidAI/LFM2-1.2B-GGUF:Q4_K_M');
    expect(await response.json()).toEqual({
      id: hubModel.id,
      object: 'model',
      created: 1_795_132_800,
      owned_by: 'lmtab',
    });
    const encoded = await get(`/v1/models/${encodeURIComponent(hubModel.id)}`);
    expect(encoded.status).toBe(200);
  });

  it('answers 404 model_not_found for an unknown or unfinished model', async () => {
    const { get } = routerHarness({ records: [downloading] });
    const unknown = await get('/v1/models/nope');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      error: {
        message: 'Model "nope" not found: no models are stored yet.',
        type: 'not_found_error',
        param: 'model',
        code: 'model_not_found',
      },
    });
    const half = await get('/v1/models/half');
    expect(half.status).toBe(404);
    expect(((await half.json()) as { error: { message: string } }).error.message).toBe(
      'Model "half" is not ready: expected a completely downloaded model, received one whose files ' +
        'are still being stored.',
    );
  });
});
