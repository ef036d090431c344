import { describe, expect, it, vi } from 'vitest';
import { LmtabError } from '../../../errors/index.js';
import { modelRecordFixture } from '../../testing/model-record-fixture.js';
import { readChunks, routerHarness } from '../../testing/router-harness.js';

const at = '2026-11-21T12:00:00.000Z';
const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const pngBase64 = btoa(String.fromCharCode(...png));
const stats =
  '"total_duration":52000000,"load_duration":1500000,"prompt_eval_count":7,' +
  '"prompt_eval_duration":20000000,"eval_count":3,"eval_duration":30250000';

describe('POST /api/generate', () => {
  it('streams NDJSON chunk by chunk, the last one with nanosecond durations', async () => {
    const { send, engine } = routerHarness();
    const response = await send('/api/generate', {
      model: 'lfm2-350m',
      prompt: 'Why is the sky blue?',
      system: 'Be brief.',
      options: {
        temperature: 0,
        top_k: 40,
        num_predict: 100,
        num_ctx: 2048,
        stop: ['\n\n'],
        seed: 7,
      },
      keep_alive: '5m',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('application/x-ndjson');
    expect(await readChunks(response)).toEqual([
      `{"model":"lfm2-350m","created_at":"${at}","response":"Hello","done":false}\n`,
      `{"model":"lfm2-350m","created_at":"${at}","response":",","done":false}\n`,
      `{"model":"lfm2-350m","created_at":"${at}","response":" world","done":false}\n`,
      `{"model":"lfm2-350m","created_at":"${at}","response":"","done":true,"done_reason":"stop",${stats}}\n`,
    ]);
    expect(engine.requests).toEqual([
      {
        model: 'lfm2-350m',
        input: {
          kind: 'chat',
          messages: [
            { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
            { role: 'user', content: [{ type: 'text', text: 'Why is the sky blue?' }] },
          ],
        },
        sampling: { temperature: 0, topK: 40, maxTokens: 100, stop: ['\n\n'], seed: 7 },
        contextLength: 2048,
      },
    ]);
  });

  it('answers one JSON object when stream is false', async () => {
    const { send } = routerHarness();
    const response = await send('/api/generate', {
      model: 'lfm2-350m',
      prompt: 'Hi',
      stream: false,
      options: { num_predict: 2 },
    });
    expect(response.headers.get('Content-Type')).toBe('application/json');
    expect(await response.json()).toEqual({
      model: 'lfm2-350m',
      created_at: at,
      response: 'Hello,',
      done: true,
      done_reason: 'length',
      total_duration: 52_000_000,
      load_duration: 1_500_000,
      prompt_eval_count: 7,
      prompt_eval_duration: 20_000_000,
      eval_count: 2,
      eval_duration: 30_250_000,
    });
  });

  it('sends a raw prompt with its images as is', async () => {
    const vision = modelRecordFixture({
      id: 'llava',
      projector: { fileId: 'p', name: 'p.gguf', size: 1, chunkSize: 1, chunks: 1, complete: true },
    });
    const { send, engine } = routerHarness({ records: [vision] });
    await send('/api/generate', {
      model: 'llava:latest',
      prompt: '<image>What is it?',
      raw: true,
      images: [pngBase64],
      stream: false,
    });
    expect(engine.requests[0]).toEqual({
      model: 'llava',
      input: {
        kind: 'prompt',
        prompt: '<image>What is it?',
        images: [{ type: 'image', data: png, mimeType: 'image/png' }],
      },
      sampling: {},
    });
  });

  it('refuses images for a model without a projector', async () => {
    const { send, engine } = routerHarness();
    const response = await send('/api/generate', {
      model: 'lfm2-350m',
      prompt: 'What?',
      images: [pngBase64],
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error:
        'Model "lfm2-350m" cannot read images: it has no vision projector (mmproj), and the request has ' +
        '1 image. Attach a projector to the model or send text only.',
    });
    expect(engine.requests).toHaveLength(0);
  });

  it('loads the model for an empty prompt, and unloads it with keep_alive 0', async () => {
    const { send, engine } = routerHarness();
    const load = await send('/api/generate', { model: 'lfm2-350m', options: { num_ctx: 8192 } });
    expect(await load.json()).toEqual({
      model: 'lfm2-350m',
      created_at: at,
      response: '',
      done: true,
      done_reason: 'load',
    });
    expect(engine.loads).toMatchObject([{ model: 'lfm2-350m', options: { contextLength: 8192 } }]);
    const unload = await send('/api/generate', { model: 'lfm2-350m', prompt: '', keep_alive: 0 });
    expect(await unload.json()).toMatchObject({ done: true, done_reason: 'unload' });
    expect(engine.unloads).toEqual(['lfm2-350m']);
    expect(engine.requests).toHaveLength(0);
  });

  it('ends a broken stream with an error line', async () => {
    const { send } = routerHarness({
      script: () => ({ failAfter: new LmtabError('engine_failure', 'Out of memory.') }),
    });
    const chunks = await readChunks(
      await send('/api/generate', { model: 'lfm2-350m', prompt: 'Hi' }),
    );
    expect(chunks).toHaveLength(4);
    expect(chunks[3]).toBe('{"error":"Out of memory.","code":"engine_failure"}\n');
  });

  it('aborts the generation when the client cancels the body', async () => {
    const { send, engine } = routerHarness({ script: () => ({ hang: true }) });
    const response = await send('/api/generate', { model: 'lfm2-350m', prompt: 'Hi' });
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    await vi.waitFor(() => expect(engine.signals[0]?.aborted).toBe(true));
  });

  it('answers 404 with Ollama’s error shape for an unknown model', async () => {
    const { send } = routerHarness();
    const response = await send('/api/generate', { model: 'llama3.2', prompt: 'Hi' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: 'Model "llama3.2" not found: expected one of the stored models (lfm2-350m).',
    });
  });

  it('answers 400 for a bad image', async () => {
    const vision = modelRecordFixture({
      projector: { fileId: 'p', name: 'p.gguf', size: 1, chunkSize: 1, chunks: 1, complete: true },
    });
    const { send } = routerHarness({ records: [vision] });
    const response = await send('/api/generate', {
      model: 'lfm2-350m',
      prompt: 'x',
      images: ['%%%'],
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error:
        'Invalid image at `images[0]`: expected base64-encoded image bytes, received text that is not base64 ("%%%").',
    });
  });
});
