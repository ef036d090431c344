import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { LmtabError } from '../../errors/index.js';
import { routerHarness } from '../testing/router-harness.js';

const hi = { model: 'lfm2-350m', messages: [{ role: 'user', content: 'Hi' }] };

describe('createRouter', () => {
  it('answers 404 for an unknown /v1 path, listing the /v1 routes', async () => {
    const { get } = routerHarness();
    const response = await get('/v1/audio/translations');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: {
        message:
          'No route for GET /v1/audio/translations: expected one of POST /v1/chat/completions, ' +
          'POST /v1/completions, GET /v1/models, GET /v1/models/{id}, POST /v1/responses, ' +
          'GET /v1/responses/{id}, DELETE /v1/responses/{id}, POST /v1/messages, ' +
          'POST /v1/messages/count_tokens, POST /v1/embeddings, POST /v1/audio/transcriptions, ' +
          'POST /v1/audio/speech, POST /v1/realtime, POST /v1/rerank, POST /v1/reranking.',
        type: 'not_found_error',
        param: null,
        code: 'not_found',
      },
    });
  });

  it('answers 404 in Ollama’s shape for /api paths lmtab does not serve', async () => {
    const { send } = routerHarness();
    for (const path of ['/api/rerank', '/api/push']) {
      const response = await send(path, { model: 'x' });
      expect(response.status).toBe(404);
      const body = (await response.json()) as { error: string };
      expect(body.error).toMatch(
        new RegExp(`^No route for POST ${path}: expected one of POST /api/generate, `),
      );
    }
  });

  it('answers 405 with Allow for a wrong method', async () => {
    const { get, send } = routerHarness();
    const response = await get('/v1/chat/completions');
    expect(response.status).toBe(405);
    expect(response.headers.get('Allow')).toBe('POST');
    expect(await response.json()).toEqual({
      error: {
        message: 'Method GET is not allowed on /v1/chat/completions: expected POST.',
        type: 'invalid_request_error',
        param: null,
        code: 'method_not_allowed',
      },
    });
    const ollama = await send('/api/tags', {});
    expect(ollama.status).toBe(405);
    expect(ollama.headers.get('Allow')).toBe('GET, HEAD');
    expect(await ollama.json()).toEqual({
      error: 'Method POST is not allowed on /api/tags: expected GET or HEAD.',
    });
  });

  it('answers HEAD like GET without a body', async () => {
    const { router } = routerHarness();
    const response = await router.handle(
      new Request('http://lmtab.test/api/version', { method: 'HEAD' }),
    );
    expect(response.status).toBe(200);
    expect(response.body).toBeNull();
  });

  it('answers 413 when Content-Length is over the limit', async () => {
    const { send, engine } = routerHarness({ maxBodyBytes: 1024 });
    const response = await send('/v1/chat/completions', hi, {
      headers: { 'Content-Length': '5000' },
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      error: {
        message:
          'Request body too large: the limit is 1024 bytes (1 KiB), the Content-Length header says ' +
          '5000 bytes (4.88 KiB).',
        type: 'invalid_request_error',
        param: null,
        code: 'body_too_large',
      },
    });
    expect(engine.requests).toHaveLength(0);
  });

  it('answers 413 when the bytes read are over the limit', async () => {
    const { router } = routerHarness({ maxBodyBytes: 1024 });
    const text = JSON.stringify({
      model: 'lfm2-350m',
      messages: [{ role: 'user', content: 'x'.repeat(2000) }],
    });
    const bytes = new TextEncoder().encode(text);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 512) controller.enqueue(bytes.slice(i, i + 512));
        controller.close();
      },
    });
    const request = new Request('http://lmtab.test/api/chat', {
      method: 'POST',
      body,
      duplex: 'half',
    } as RequestInit);
    const response = await router.handle(request);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      error:
        'Request body too large: the limit is 1024 bytes (1 KiB), received at least 1536 bytes (1.5 KiB).',
    });
  });

  it('has a handle that works detached from its router', async () => {
    const { router } = routerHarness();
    const handle = router.handle;
    const response = await handle(new Request('http://lmtab.test/api/version'));
    expect(await response.json()).toEqual({ version: '0.1.0' });
  });
});

describe('the official openai client against the router', () => {
  const client = (options: Parameters<typeof routerHarness>[0] = {}) => {
    const harness = routerHarness(options);
    const openai = new OpenAI({
      apiKey: 'unused',
      baseURL: 'http://lmtab.test/v1',
      maxRetries: 0,
      fetch: (input, init) => harness.router.handle(new Request(input, init)),
    });
    return { ...harness, openai };
  };

  it('reads an answer, a stream and a model list', async () => {
    const { openai } = client();
    const completion = await openai.chat.completions.create({
      model: 'lfm2-350m',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(completion.choices[0]?.message.content).toBe('Hello, world');
    const stream = await openai.chat.completions.create({
      model: 'lfm2-350m',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let totalTokens = 0;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      totalTokens = chunk.usage?.total_tokens ?? totalTokens;
    }
    expect(text).toBe('Hello, world');
    expect(totalTokens).toBe(10);
    const models = await openai.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['lfm2-350m']);
  });

  it('raises typed errors, mid-stream ones included', async () => {
    const { openai } = client({
      script: () => ({ failAfter: new LmtabError('engine_failure', 'Out of memory.') }),
    });
    await expect(
      openai.chat.completions.create({
        model: 'nope',
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    ).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    const stream = await openai.chat.completions.create({
      model: 'lfm2-350m',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    });
    const read = async () => {
      for await (const _chunk of stream) {
        // drain
      }
    };
    await expect(read()).rejects.toThrow('Out of memory.');
  });
});
