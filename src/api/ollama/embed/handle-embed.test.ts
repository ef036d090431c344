import { describe, expect, it } from 'vitest';
import { fakeTimings, fakeVector } from '../../testing/fake-engine.js';
import { embedderRecordFixture, modelRecordFixture } from '../../testing/model-record-fixture.js';
import { routerHarness } from '../../testing/router-harness.js';

const embedder = embedderRecordFixture('nomic-embed');
const records = [modelRecordFixture(), embedder];

describe('POST /api/embed', () => {
  it('answers Ollama’s shape, truncating by default', async () => {
    const { send, engine } = routerHarness({ records });
    const response = await send('/api/embed', {
      model: 'nomic-embed:latest',
      input: ['why is the sky blue', 'grass'],
      options: { num_ctx: 256 },
      keep_alive: '10m',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      model: 'nomic-embed',
      embeddings: [Array.from(fakeVector('why is the sky blue')), Array.from(fakeVector('grass'))],
      total_duration: fakeTimings.totalMs * 1e6,
      load_duration: fakeTimings.loadMs * 1e6,
      prompt_eval_count: 6,
    });
    expect(engine.embedRequests).toEqual([
      {
        model: 'nomic-embed',
        inputs: ['why is the sky blue', 'grass'],
        truncate: true,
        contextLength: 256,
      },
    ]);
    expect(engine.unloads).toEqual([]);
  });

  it('only loads the model without input, and unloads after keep_alive 0', async () => {
    const { send, engine } = routerHarness({ records });
    const response = await send('/api/embed', { model: 'nomic-embed', keep_alive: 0 });
    expect(((await response.json()) as { embeddings: unknown[] }).embeddings).toEqual([]);
    expect(engine.embedRequests[0]!.inputs).toEqual([]);
    expect(engine.unloads).toEqual(['nomic-embed']);
  });

  it.each([
    [{ input: 5 }, 'expected a string or an array of strings, received the number 5'],
    [{ input: ['a', ''] }, 'Invalid `input[1]`: expected a non-empty string'],
    [{ input: 'a', truncate: 'yes' }, 'Invalid `truncate`'],
    [{ input: 'a', options: { temperature: 0 } }, 'Unsupported field `options.temperature`'],
    [{ input: 'a', dimensions: 4 }, 'expected dimensions absent or 8, received 4'],
    [{ input: 'a', prompt: 'b' }, 'Unsupported field `prompt`'],
  ])('refuses %j in Ollama’s error shape', async (fields, text) => {
    const { send } = routerHarness({ records });
    const response = await send('/api/embed', { model: 'nomic-embed', ...fields });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string };
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).toContain(text);
  });

  it('refuses a chat model with a 400 that says it cannot embed', async () => {
    const { send } = routerHarness({ records });
    const response = await send('/api/embed', { model: 'lfm2-350m', input: 'a' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toContain('cannot embed');
  });
});

describe('POST /api/embeddings', () => {
  it('answers {embedding} for one prompt', async () => {
    const { send, engine } = routerHarness({ records });
    const response = await send('/api/embeddings', { model: 'nomic-embed', prompt: 'sky' });
    expect(await response.json()).toEqual({ embedding: Array.from(fakeVector('sky')) });
    expect(engine.embedRequests[0]).toEqual({
      model: 'nomic-embed',
      inputs: ['sky'],
      truncate: true,
    });
  });

  it('refuses an `input` field (that is /api/embed’s)', async () => {
    const { send } = routerHarness({ records });
    const response = await send('/api/embeddings', { model: 'nomic-embed', input: 'sky' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toContain(
      'Unsupported field `input`',
    );
  });
});

describe('POST /api/show of an embedding model', () => {
  it('lists the embedding capability and the pooling type', async () => {
    const { send } = routerHarness({ records });
    const body = (await (await send('/api/show', { model: 'nomic-embed' })).json()) as {
      capabilities: string[];
      model_info: Record<string, unknown>;
    };
    expect(body.capabilities).toEqual(['embedding']);
    expect(body.model_info['nomic-bert.pooling_type']).toBe(1);
  });
});
