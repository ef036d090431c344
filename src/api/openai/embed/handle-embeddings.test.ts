import { describe, expect, it } from 'vitest';
import { fakeVector } from '../../testing/fake-engine.js';
import { embedderRecordFixture, modelRecordFixture } from '../../testing/model-record-fixture.js';
import { routerHarness } from '../../testing/router-harness.js';
import { float32Base64 } from './encode-embeddings.js';

const chat = modelRecordFixture();
const embedder = embedderRecordFixture('bge-small');
const records = [chat, embedder];

describe('POST /v1/embeddings', () => {
  it('answers one vector per input, in order, with usage', async () => {
    const { send, engine } = routerHarness({ records });
    const response = await send('/v1/embeddings', {
      model: 'bge-small',
      input: ['one two', 'three'],
      user: 'someone',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: Array.from(fakeVector('one two')) },
        { object: 'embedding', index: 1, embedding: Array.from(fakeVector('three')) },
      ],
      model: 'bge-small',
      usage: { prompt_tokens: 3, total_tokens: 3 },
    });
    expect(engine.embedRequests).toEqual([
      { model: 'bge-small', inputs: ['one two', 'three'], truncate: false },
    ]);
  });

  it('takes a token array as one input and an array of them as many', async () => {
    const { send, engine } = routerHarness({ records });
    await send('/v1/embeddings', { model: 'bge-small', input: [1, 2, 3] });
    await send('/v1/embeddings', { model: 'bge-small', input: [[1, 2], [3]] });
    expect(engine.embedRequests.map((r) => r.inputs)).toEqual([[[1, 2, 3]], [[1, 2], [3]]]);
  });

  it('encodes base64 as little-endian float32 bytes', async () => {
    const { send } = routerHarness({ records });
    const response = await send('/v1/embeddings', {
      model: 'bge-small',
      input: 'one',
      encoding_format: 'base64',
    });
    const body = (await response.json()) as { data: { embedding: string }[] };
    expect(body.data[0]!.embedding).toBe(float32Base64(fakeVector('one')));
    const bytes = Buffer.from(body.data[0]!.embedding, 'base64');
    expect(bytes.readFloatLE(4)).toBe(fakeVector('one')[1]);
  });

  it('accepts the model’s own dimensions and refuses others', async () => {
    const { send } = routerHarness({ records });
    const own = await send('/v1/embeddings', { model: 'bge-small', input: 'a', dimensions: 8 });
    expect(own.status).toBe(200);
    const other = await send('/v1/embeddings', { model: 'bge-small', input: 'a', dimensions: 4 });
    expect(other.status).toBe(400);
    expect(await other.json()).toEqual({
      error: {
        message:
          'Model "bge-small" makes 8-dimensional vectors and its GGUF declares no shorter ' +
          '(Matryoshka) dimensions: expected dimensions absent or 8, received 4.',
        type: 'invalid_request_error',
        param: 'dimensions',
        code: 'invalid_request',
      },
    });
  });

  it.each([
    [{ input: '' }, 'input', 'Invalid `input`: expected'],
    [{ input: [] }, 'input', 'Invalid `input`'],
    [{ input: [1, 'a'] }, 'input[0]', 'Invalid `input[0]`'],
    [{ input: [-1] }, 'input[0]', 'Invalid `input[0]`: expected an integer >= 0'],
    [{ input: 'a', encoding_format: 'int8' }, 'encoding_format', '"float", "base64"'],
    [{ input: 'a', dimensions: 0 }, 'dimensions', 'expected an integer >= 1'],
    [{ input: 'a', extra: true }, 'extra', 'Unsupported field `extra`'],
  ])('refuses %j in OpenAI’s error shape', async (fields, param, text) => {
    const { send, engine } = routerHarness({ records });
    const response = await send('/v1/embeddings', { model: 'bge-small', ...fields });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', param });
    expect(body.error.message).toContain(text);
    expect(engine.embedRequests).toEqual([]);
  });

  it('refuses a chat model with a 400 that says it cannot embed', async () => {
    const { send, engine } = routerHarness({ records });
    const response = await send('/v1/embeddings', { model: 'lfm2-350m', input: 'a' });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; param: string } };
    expect(body.error.param).toBe('model');
    expect(body.error.message).toContain('Model "lfm2-350m" cannot embed');
    expect(engine.embedRequests).toEqual([]);
  });
});
