import { describe, expect, it, vi } from 'vitest';
import { LmtabError } from '../../../errors/index.js';
import type { StoredFile } from '../../../store/index.js';
import { modelRecordFixture } from '../../testing/model-record-fixture.js';
import { harnessNow, readChunks, routerHarness, sseData } from '../../testing/router-harness.js';

const hi = { model: 'lfm2-350m', messages: [{ role: 'user', content: 'Hi' }] };
const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const pngDataUri = `data:image/png;base64,${btoa(String.fromCharCode(...png))}`;
const projector: StoredFile = {
  fileId: 'mmproj-0',
  name: 'mmproj.gguf',
  size: 1000,
  chunkSize: 1000,
  chunks: 1,
  complete: true,
};
const visionModel = modelRecordFixture({
  id: 'hf.co/LiquidAI/LFM2-VL-450M-GGUF:Q4_K_M',
  projector,
});
const created = harnessNow / 1000;
// What Claude Code's tools carry: keywords llama.cpp's grammar cannot enforce.
const agentSchema = {
  type: 'object',
  properties: {
    url: { type: 'string', format: 'uri' },
    timeout: { type: 'number', minimum: 0 },
    headers: { type: 'object', propertyNames: { pattern: '^[a-z-]+$' } },
  },
  required: ['url'],
};

describe('POST /v1/chat/completions', () => {
  it('answers as JSON and hands the engine one generate request with converted names', async () => {
    const { send, engine } = routerHarness();
    const response = await send('/v1/chat/completions', {
      model: 'lfm2-350m',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      ],
      temperature: 0,
      top_p: 0.9,
      top_k: 40,
      min_p: 0.05,
      repeat_penalty: 1.1,
      frequency_penalty: 0,
      presence_penalty: 0.5,
      seed: 0,
      max_tokens: 100,
      stop: '\n\n',
      n: 1,
      user: 'ignored',
      stream: false,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('application/json');
    expect(await response.json()).toEqual({
      id: expect.stringMatching(/^chatcmpl-[0-9a-f]{24}$/) as unknown,
      object: 'chat.completion',
      created,
      model: 'lfm2-350m',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello, world', refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
    });
    expect(engine.requests).toEqual([
      {
        model: 'lfm2-350m',
        input: {
          kind: 'chat',
          messages: [
            { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
            { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
          ],
        },
        sampling: {
          temperature: 0,
          topP: 0.9,
          topK: 40,
          minP: 0.05,
          repeatPenalty: 1.1,
          frequencyPenalty: 0,
          presencePenalty: 0.5,
          seed: 0,
          maxTokens: 100,
          stop: ['\n\n'],
        },
      },
    ]);
  });

  it('streams SSE chunk by chunk, role first, ending with [DONE]', async () => {
    const { send } = routerHarness();
    const response = await send('/v1/chat/completions', { ...hi, stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('text/event-stream');
    expect(response.headers.get('Cache-Control')).toBe('no-cache');
    const chunks = await readChunks(response);
    const id = (sseData(chunks)[0] as { id: string }).id;
    expect(id).toMatch(/^chatcmpl-[0-9a-f]{24}$/);
    const head = `{"id":"${id}","created":${created},"model":"lfm2-350m","object":"chat.completion.chunk"`;
    const choice = (delta: string, finish = 'null') =>
      `${head},"choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish}}]}`;
    expect(chunks).toEqual([
      `data: ${choice('{"role":"assistant","content":"","refusal":null}')}\n\n`,
      `data: ${choice('{"content":"Hello"}')}\n\n`,
      `data: ${choice('{"content":","}')}\n\n`,
      `data: ${choice('{"content":" world"}')}\n\n`,
      `data: ${choice('{}', '"stop"')}\n\n`,
      'data: [DONE]\n\n',
    ]);
  });

  it('sends a last usage chunk with no choices when include_usage is set', async () => {
    const { send } = routerHarness();
    const response = await send('/v1/chat/completions', {
      ...hi,
      stream: true,
      stream_options: { include_usage: true },
    });
    const data = sseData(await readChunks(response));
    expect(data).toHaveLength(7);
    expect(data.slice(0, 5).map((d) => (d as { usage: unknown }).usage)).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);
    expect(data[5]).toMatchObject({
      object: 'chat.completion.chunk',
      choices: [],
      usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
    });
    expect(data[6]).toBe('[DONE]');
  });

  it('passes a stop list to the engine, which ends before it', async () => {
    const { send, engine } = routerHarness();
    const response = await send('/v1/chat/completions', { ...hi, stop: [',', 'never'] });
    const body = (await response.json()) as {
      choices: { message: { content: string }; finish_reason: string }[];
    };
    expect(engine.requests[0]?.sampling.stop).toEqual([',', 'never']);
    expect(body.choices[0]).toMatchObject({ message: { content: 'Hello' }, finish_reason: 'stop' });
  });

  it('answers finish_reason length when max_tokens runs out', async () => {
    const { send } = routerHarness();
    const response = await send('/v1/chat/completions', { ...hi, max_tokens: 2, stream: true });
    const data = sseData(await readChunks(response)) as {
      choices: { finish_reason: string | null }[];
    }[];
    expect(data.at(-2)?.choices[0]?.finish_reason).toBe('length');
  });

  it('passes ignore_eos (llama-server spelling) to the engine, false included', async () => {
    const { send, engine } = routerHarness();
    await send('/v1/chat/completions', { ...hi, ignore_eos: true });
    await send('/v1/chat/completions', { ...hi, ignore_eos: false });
    await send('/v1/chat/completions', hi);
    expect(engine.requests.map((r) => r.sampling.ignoreEos)).toEqual([true, false, undefined]);
  });

  it('prefers max_completion_tokens to max_tokens', async () => {
    const { send, engine } = routerHarness();
    await send('/v1/chat/completions', { ...hi, max_tokens: 50, max_completion_tokens: 1 });
    expect(engine.requests[0]?.sampling.maxTokens).toBe(1);
  });

  it('aborts the generation when the client signal aborts', async () => {
    const { send, engine } = routerHarness({ script: () => ({ hang: true }) });
    const controller = new AbortController();
    const pending = send('/v1/chat/completions', hi, { signal: controller.signal });
    await vi.waitFor(() => expect(engine.signals).toHaveLength(1));
    expect(engine.signals[0]?.aborted).toBe(false);
    controller.abort();
    const response = await pending;
    expect(engine.signals[0]?.aborted).toBe(true);
    expect(response.status).toBe(499);
  });

  it('aborts the generation when the client cancels the streamed body', async () => {
    const { send, engine } = routerHarness({ script: () => ({ hang: true }) });
    const response = await send('/v1/chat/completions', { ...hi, stream: true });
    const reader = response.body!.getReader();
    await reader.read();
    await reader.read();
    expect(engine.signals[0]?.aborted).toBe(false);
    await reader.cancel();
    await vi.waitFor(() => expect(engine.signals[0]?.aborted).toBe(true));
  });

  it('sends an error after streaming began as a last error event, with no [DONE]', async () => {
    const { send } = routerHarness({
      script: () => ({
        failAfter: new LmtabError(
          'engine_failure',
          'The GPU device was lost: expected a device, received none.',
        ),
      }),
    });
    const response = await send('/v1/chat/completions', { ...hi, stream: true });
    expect(response.status).toBe(200);
    const chunks = await readChunks(response);
    expect(chunks).toHaveLength(5);
    expect(chunks.at(-1)).toBe(
      'data: {"error":{"message":"The GPU device was lost: expected a device, received none.",' +
        '"type":"server_error","param":null,"code":"engine_failure"}}\n\n',
    );
  });

  it('hands the engine an image data URI as bytes with its MIME type', async () => {
    const { send, engine } = routerHarness({ records: [visionModel] });
    const response = await send('/v1/chat/completions', {
      model: visionModel.id,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: pngDataUri, detail: 'auto' } },
          ],
        },
      ],
    });
    expect(response.status).toBe(200);
    expect(engine.requests[0]?.input).toEqual({
      kind: 'chat',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', data: png, mimeType: 'image/png' },
          ],
        },
      ],
    });
  });

  it('fetches an image URL with the injected fetch', async () => {
    const fetch = vi.fn((_input: RequestInfo | URL) => Promise.resolve(new Response(png)));
    const { send, engine } = routerHarness({ records: [visionModel], fetch });
    await send('/v1/chat/completions', {
      model: visionModel.id,
      messages: [
        { role: 'user', content: [{ type: 'image_url', image_url: 'https://example.test/a.png' }] },
      ],
    });
    expect(fetch.mock.calls[0]?.[0]).toBe('https://example.test/a.png');
    expect(engine.requests[0]?.input).toMatchObject({
      messages: [{ content: [{ type: 'image', data: png, mimeType: 'image/png' }] }],
    });
  });

  it('refuses an image for a model without a vision projector, before running anything', async () => {
    const fetch = vi.fn(() => Promise.resolve(new Response(png)));
    const { send, engine } = routerHarness({ fetch });
    const response = await send('/v1/chat/completions', {
      model: 'lfm2-350m',
      messages: [
        { role: 'user', content: [{ type: 'image_url', image_url: 'https://example.test/a.png' }] },
      ],
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        message:
          'Model "lfm2-350m" cannot read images: it has no vision projector (mmproj), and the request ' +
          'has 1 image. Attach a projector to the model or send text only.',
        type: 'invalid_request_error',
        param: 'messages',
        code: 'invalid_request',
      },
    });
    expect(fetch).not.toHaveBeenCalled();
    expect(engine.requests).toHaveLength(0);
  });

  it('refuses an unreadable image with 400 naming where it was', async () => {
    const { send } = routerHarness({ records: [visionModel] });
    const response = await send('/v1/chat/completions', {
      model: visionModel.id,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: `data:image/png;base64,${btoa('hello')}` } },
          ],
        },
      ],
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: {
        message:
          'Invalid image at `messages[0].content[0].image_url.url`: expected a PNG, JPEG, GIF, WebP or ' +
          'BMP image, received 5 bytes that are none of these (first bytes: 68 65 6c 6c 6f).',
        param: 'messages[0].content[0].image_url.url',
      },
    });
  });

  it('answers 404 model_not_found naming the stored models', async () => {
    const { send } = routerHarness();
    const response = await send('/v1/chat/completions', { ...hi, model: 'gpt-4o' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: {
        message: 'Model "gpt-4o" not found: expected one of the stored models (lfm2-350m).',
        type: 'not_found_error',
        param: 'model',
        code: 'model_not_found',
      },
    });
  });

  it('answers 400 naming the field for a malformed request', async () => {
    const { send } = routerHarness();
    const response = await send('/v1/chat/completions', { ...hi, temperature: 'hot' });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        message: 'Invalid `temperature`: expected a number, received the string "hot".',
        type: 'invalid_request_error',
        param: 'temperature',
        code: 'invalid_request',
      },
    });
  });

  it('answers 400 saying what arrived for malformed JSON', async () => {
    const { send } = routerHarness();
    const response = await send('/v1/chat/completions', '{"model": "lfm2-350m",');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      'Malformed JSON in the request body: expected a JSON object, received 22 bytes starting with ' +
        '"{\\"model\\": \\"lfm2-350m\\",".',
    );
  });

  it('answers 503 with Retry-After when the engine is busy', async () => {
    const busy = new LmtabError(
      'engine_busy',
      'The engine is busy: 1 request running, 0 free slots.',
      {
        retryAfter: 3,
      },
    );
    const { send } = routerHarness({ script: () => ({ failBefore: busy }) });
    const response = await send('/v1/chat/completions', { ...hi, stream: true });
    expect(response.status).toBe(503);
    expect(response.headers.get('Retry-After')).toBe('3');
    expect(await response.json()).toMatchObject({
      error: { type: 'server_error', code: 'engine_busy' },
    });
  });

  it('answers 500 when the engine fails before any output', async () => {
    const { send } = routerHarness({ script: () => ({ failBefore: new Error('wasm trap') }) });
    const response = await send('/v1/chat/completions', hi);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      error: { message: 'wasm trap', type: 'server_error', param: null, code: 'engine_failure' },
    });
  });

  it('applies a custom model’s system prompt and parameters, request fields winning', async () => {
    const pirate = modelRecordFixture({
      id: 'pirate',
      customization: {
        from: 'lfm2-350m',
        system: 'You are a pirate.',
        parameters: { temperature: 1.2, top_k: 20 },
        messages: [],
      },
    });
    const { send, engine } = routerHarness({ records: [pirate] });
    await send('/v1/chat/completions', { ...hi, model: 'pirate', temperature: 0 });
    expect(engine.requests[0]).toMatchObject({
      model: 'pirate',
      input: {
        messages: [
          { role: 'system', content: [{ type: 'text', text: 'You are a pirate.' }] },
          { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        ],
      },
      sampling: { temperature: 0, topK: 20 },
    });
  });

  it('accepts bookkeeping fields and keeps a mid-conversation system message in place', async () => {
    const { send, engine } = routerHarness();
    const response = await send('/v1/chat/completions', {
      model: 'lfm2-350m',
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
        { role: 'system', content: 'Answer in French from now on.' },
        { role: 'user', content: 'Bye' },
      ],
      user: 'u1',
      metadata: { run: 'a' },
      store: false,
      service_tier: 'flex',
      prompt_cache_key: 'k',
      prompt_cache_retention: '24h',
      safety_identifier: 's',
    });
    expect(response.status).toBe(200);
    expect(engine.requests[0]?.input).toEqual({
      kind: 'chat',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Hello' }] },
        { role: 'system', content: [{ type: 'text', text: 'Answer in French from now on.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Bye' }] },
      ],
    });
  });

  it('refuses keywords it cannot enforce only in a strict or forced tool', async () => {
    const fetchTool = (strict?: boolean) => ({
      type: 'function',
      function: {
        name: 'fetch',
        parameters: agentSchema,
        ...(strict === undefined ? {} : { strict }),
      },
    });
    const clock = { type: 'function', function: { name: 'clock' } };
    const { send, engine } = routerHarness();
    const loose = await send('/v1/chat/completions', { ...hi, tools: [fetchTool(), clock] });
    expect(loose.status).toBe(200);
    expect(engine.requests[0]?.tools?.[0]).toEqual({ name: 'fetch', parameters: agentSchema });
    const other = await send('/v1/chat/completions', {
      ...hi,
      tools: [fetchTool(false), clock],
      tool_choice: { type: 'function', function: { name: 'clock' } },
    });
    expect(other.status).toBe(200);
    const refused: [unknown, string][] = [
      [{ tools: [clock, fetchTool(true)] }, 'is `strict`'],
      [{ tools: [clock, fetchTool()], tool_choice: 'required' }, 'is forced by `tool_choice`'],
      [
        {
          tools: [clock, fetchTool()],
          tool_choice: { type: 'function', function: { name: 'fetch' } },
        },
        'is forced by `tool_choice`',
      ],
    ];
    for (const [fields, why] of refused) {
      const response = await send('/v1/chat/completions', { ...hi, ...(fields as object) });
      expect(response.status, JSON.stringify(fields)).toBe(400);
      const { error } = (await response.json()) as { error: { message: string; param: string } };
      expect(error.param).toBe('tools[1].function.parameters.properties.url.format');
      expect(error.message).toContain(`The tool "fetch" ${why}`);
    }
    const broken = await send('/v1/chat/completions', {
      ...hi,
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'text' } } }],
    });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({
      error: { param: 'tools[0].function.parameters.type' },
    });
  });

  it('drops tools of other types than function, and refuses a choice forcing one', async () => {
    const { send, engine } = routerHarness();
    const custom = { type: 'custom', custom: { name: 'patch', format: { type: 'text' } } };
    const weather = { type: 'function', function: { name: 'weather' } };
    const response = await send('/v1/chat/completions', { ...hi, tools: [custom, weather] });
    expect(response.status).toBe(200);
    expect(engine.requests[0]?.tools?.map((tool) => tool.name)).toEqual(['weather']);
    const forced = await send('/v1/chat/completions', {
      ...hi,
      tools: [custom, weather],
      tool_choice: { type: 'custom', custom: { name: 'patch' } },
    });
    expect(forced.status).toBe(400);
    expect(await forced.json()).toEqual({
      error: {
        message:
          'Invalid `tool_choice`: expected a tool lmtab runs (one given with a JSON Schema of its arguments), received a choice that forces a tool of type "custom"; built-in and server tools are dropped from `tools`.',
        type: 'invalid_request_error',
        param: 'tool_choice',
        code: 'invalid_request',
      },
    });
  });
});
