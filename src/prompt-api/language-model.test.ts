import { describe, expect, it } from 'vitest';
import { createLanguageModelClass } from './language-model.js';

/** A body that arrives in exactly these pieces (strings, or raw bytes to split a character). */
function pieces(...parts: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const part of parts) {
        controller.enqueue(typeof part === 'string' ? encoder.encode(part) : part);
      }
      controller.close();
    },
  });
}

/** lmtab's error answers, byte for byte: OpenAI's body on `/v1`, Ollama's and a code header on `/api`. */
const openAiError = (status: number, code: string, message: string) =>
  new Response(JSON.stringify({ error: { message, type: 'x', param: null, code } }), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
const nativeError = (status: number, code: string, message: string) =>
  new Response(JSON.stringify({ error: message }), {
    status,
    headers: { 'Content-Type': 'application/json', 'X-Lmtab-Error-Code': code },
  });
const sse = (...parts: (string | Uint8Array)[]) =>
  new Response(pieces(...parts), { headers: { 'Content-Type': 'text/event-stream' } });
const delta = (text: string) => JSON.stringify({ choices: [{ delta: { content: text } }] });

async function read(stream: ReadableStream<string>): Promise<string[]> {
  const chunks: string[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<string>) chunks.push(chunk);
  return chunks;
}

async function session(answers: Parameters<typeof fakeLmtab>[1]) {
  const { fetch } = fakeLmtab(['completion'], answers);
  return createLanguageModelClass({ baseUrl: 'http://lmtab.test', model: 'tiny', fetch }).create();
}

/**
 * A fetch that records each request and answers as lmtab's API would, for a stored `tiny` with
 * `capabilities` (`/api/show`'s).
 */
function fakeLmtab(
  capabilities = ['completion'],
  answers: Record<string, (body: Record<string, unknown> | undefined) => Response> = {},
) {
  const requests: { path: string; body: Record<string, unknown> | undefined }[] = [];
  const json = (body: unknown, status = 200) =>
    new Response(JSON.stringify(body), {
      status,
      headers: { 'Content-Type': 'application/json' },
    });
  const fakeFetch = (async (url: string, init?: RequestInit) => {
    const path = new URL(url).pathname;
    const body = init?.body
      ? (JSON.parse(String(init.body)) as Record<string, unknown>)
      : undefined;
    requests.push({ path, body });
    const answer = answers[path];
    if (answer) return answer(body);
    if (path === '/v1/models') return json({ data: [{ id: 'tiny' }] });
    if (path === '/api/show') {
      return json({ model_info: { 'lfm2.context_length': 128 }, capabilities });
    }
    if (path === '/api/generate') return json({ done: true });
    if (path === '/v1/messages/count_tokens') {
      const words = JSON.stringify(body).split(/\s+/).length;
      return json({ input_tokens: words });
    }
    if (path === '/v1/chat/completions') {
      if (body?.stream === true) {
        const events = ['Hel', 'lo']
          .map((text) => `data: ${JSON.stringify({ choices: [{ delta: { content: text } }] })}\n\n`)
          .concat(`data: ${JSON.stringify({ choices: [], usage: { total_tokens: 200 } })}\n\n`)
          .concat('data: [DONE]\n\n');
        return new Response(events.join(''), { headers: { 'Content-Type': 'text/event-stream' } });
      }
      return json({
        choices: [{ message: { content: '{"rating": 4}' } }],
        usage: { prompt_tokens: 39, total_tokens: 40 },
      });
    }
    return json({ error: { message: `no route ${path}` } }, 404);
  }) as typeof fetch;
  return { fetch: fakeFetch, requests };
}

describe("lmtab's LanguageModel", () => {
  it('answers availability from the stored models and the options asked', async () => {
    const { fetch } = fakeLmtab();
    const stored = createLanguageModelClass({ baseUrl: 'http://lmtab.test', model: 'tiny', fetch });
    const missing = createLanguageModelClass({
      baseUrl: 'http://lmtab.test',
      model: 'gone',
      fetch,
    });
    expect(await stored.availability()).toBe('available');
    expect(await missing.availability()).toBe('downloadable');
    expect(await stored.availability({ expectedInputs: [{ type: 'audio' }] })).toBe('unavailable');
    expect(await stored.availability({ tools: [{}] })).toBe('unavailable');
  });

  it('sends the whole conversation, the sampling and the response constraint', async () => {
    const { fetch, requests } = fakeLmtab();
    const LanguageModel = createLanguageModelClass({
      baseUrl: 'http://lmtab.test/',
      model: 'tiny',
      fetch,
      maxTokens: 64,
    });
    const session = await LanguageModel.create({
      temperature: 0.5,
      topK: 8,
      initialPrompts: [{ role: 'system', content: 'Be brief.' }],
    });
    expect(session.contextWindow).toBe(128);
    const schema = { type: 'object', properties: { rating: { type: 'integer' } } };
    expect(await session.prompt('Rate it', { responseConstraint: schema })).toBe('{"rating": 4}');
    const chat = requests.find((r) => r.path === '/v1/chat/completions')!.body!;
    expect(chat).toMatchObject({
      model: 'tiny',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Rate it' },
      ],
      temperature: 0.5,
      top_k: 8,
      max_tokens: 64,
      stream: false,
      response_format: { type: 'json_schema', json_schema: { schema, strict: true } },
    });
    expect(session.contextUsage).toBe(40);
    const overflows: string[] = [];
    session.addEventListener('contextoverflow', () => overflows.push('contextoverflow'));
    session.onquotaoverflow = () => overflows.push('quotaoverflow');
    // The next turn carries the answer before it; a streamed one gives the deltas.
    const chunks: string[] = [];
    for await (const chunk of session.promptStreaming([
      { role: 'user', content: [{ type: 'text', value: 'Again' }] },
    ]) as unknown as AsyncIterable<string>) {
      chunks.push(chunk);
    }
    expect(chunks.join('')).toBe('Hello');
    const streamed = requests.filter((r) => r.path === '/v1/chat/completions')[1]!.body!;
    expect(streamed.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Rate it' },
      { role: 'assistant', content: '{"rating": 4}' },
      { role: 'user', content: 'Again' },
    ]);
    // Over the context window (200 tokens of 128): both overflow events fire.
    expect(session.contextUsage).toBe(200);
    expect(overflows.sort()).toEqual(['contextoverflow', 'quotaoverflow']);
  });

  it('refuses what it cannot do with the Prompt API’s errors', async () => {
    const { fetch } = fakeLmtab();
    const LanguageModel = createLanguageModelClass({
      baseUrl: 'http://lmtab.test',
      model: 'tiny',
      fetch,
    });
    await expect(LanguageModel.create({ tools: [{}] })).rejects.toMatchObject({
      name: 'NotSupportedError',
    });
    await expect(LanguageModel.create({ topK: 3 })).rejects.toMatchObject({
      name: 'NotSupportedError',
    });
    const session = await LanguageModel.create();
    await expect(
      session.prompt([{ role: 'user', content: [{ type: 'image', value: new Uint8Array() }] }]),
    ).rejects.toMatchObject({ name: 'NotSupportedError' });
    await expect(session.prompt('x', { responseConstraint: /a+/ })).rejects.toMatchObject({
      name: 'NotSupportedError',
    });
    const clone = await session.clone();
    session.destroy();
    await expect(session.prompt('x')).rejects.toMatchObject({ name: 'InvalidStateError' });
    // A clone lives on.
    expect(await clone.prompt('x')).toBe('{"rating": 4}');
  });

  it('sends declared images and audio as image_url and input_audio parts, to a model that reads them', async () => {
    const { fetch, requests } = fakeLmtab(['completion', 'vision', 'audio']);
    const LanguageModel = createLanguageModelClass({
      baseUrl: 'http://lmtab.test',
      model: 'tiny',
      fetch,
    });
    const both = { expectedInputs: [{ type: 'image' as const }, { type: 'audio' as const }] };
    expect(await LanguageModel.availability(both)).toBe('available');
    const session = await LanguageModel.create(both);
    // An AudioBuffer's shape: one channel of 4 samples at 16 kHz.
    const audioBuffer = {
      sampleRate: 16_000,
      length: 4,
      numberOfChannels: 1,
      getChannelData: () => Float32Array.of(0, 0.5, -0.5, 1),
    };
    const png = new Blob([Uint8Array.of(0x89, 0x50, 0x4e, 0x47)], { type: 'image/png' });
    await session.prompt([
      {
        role: 'user',
        content: [
          { type: 'text', value: 'Look and listen.' },
          { type: 'image', value: png },
          { type: 'audio', value: audioBuffer },
        ],
      },
    ]);
    const sent = requests.filter((r) => r.path === '/v1/chat/completions').at(-1)!.body!;
    const [text, image, audio] = (sent.messages as { content: Record<string, unknown>[] }[])[0]!
      .content;
    expect(text).toEqual({ type: 'text', text: 'Look and listen.' });
    expect(image).toEqual({
      type: 'image_url',
      image_url: { url: 'data:image/png;base64,iVBORw==' },
    });
    const clip = (audio as { input_audio: { data: string; format: string } }).input_audio;
    expect(clip.format).toBe('wav');
    const wav = Uint8Array.from(atob(clip.data), (c) => c.charCodeAt(0));
    expect(String.fromCharCode(...wav.subarray(0, 4))).toBe('RIFF');
    // 44 header bytes, then the samples as 16-bit PCM (0, 0.5, -0.5, 1 of 32767).
    expect([...new Int16Array(wav.slice(44).buffer)]).toEqual([0, 16384, -16383, 32767]);
    // Measuring media asks the engine: a one-token chat's prompt tokens.
    expect(
      await session.measureContextUsage([
        { role: 'user', content: [{ type: 'image', value: png }] },
      ]),
    ).toBe(39);
  });

  it('refuses media a session did not declare, or its model does not read', async () => {
    const { fetch } = fakeLmtab(['completion', 'vision']);
    const LanguageModel = createLanguageModelClass({
      baseUrl: 'http://lmtab.test',
      model: 'tiny',
      fetch,
    });
    const audio = { expectedInputs: [{ type: 'audio' as const }] };
    expect(await LanguageModel.availability(audio)).toBe('unavailable');
    await expect(LanguageModel.create(audio)).rejects.toMatchObject({
      name: 'NotSupportedError',
      message: 'tiny does not read audio: it has no audio projector',
    });
    const session = await LanguageModel.create({ expectedInputs: [{ type: 'image' }] });
    await expect(
      session.prompt([{ role: 'user', content: [{ type: 'audio', value: new Blob(['RIFF']) }] }]),
    ).rejects.toMatchObject({ name: 'NotSupportedError', message: /declare it in expectedInputs/ });
    await expect(
      session.prompt([{ role: 'user', content: [{ type: 'image', value: 42 }] }]),
    ).rejects.toMatchObject({ name: 'TypeError' });
  });
});

describe("lmtab's LanguageModel on lmtab's stream decoders", () => {
  it('reads an SSE answer split on CR LF pairs and across chunk boundaries, a character split too', async () => {
    const accented = new TextEncoder().encode(`data: ${delta('é')}\r\n\r\n`);
    // Between the two bytes of é.
    const half = accented.indexOf(0xc3) + 1;
    const model = await session({
      '/v1/chat/completions': () =>
        sse(
          `data: ${delta('Hel')}\r\n\r\ndata: ${delta('lo')}\r`,
          `\n\r\ndata: {"choices":[{"delta":`,
          `{"content":" wor"}}]}\r\n`,
          `\r\n`,
          accented.subarray(0, half),
          accented.subarray(half),
          `data: ${JSON.stringify({ choices: [], usage: { total_tokens: 9 } })}\r\n\r\n`,
          'data: [DONE]\r\n\r\n',
        ),
    });
    expect(await read(model.promptStreaming('Hi'))).toEqual(['Hel', 'lo', ' wor', 'é']);
    expect(model.contextUsage).toBe(9);
  });

  it('reads /api/pull progress lines split anywhere, and an error line as a NetworkError with its code', async () => {
    const progress: number[] = [];
    const pulled = fakeLmtab(['completion'], {
      '/api/pull': () =>
        new Response(
          pieces('{"status":"pulling","completed":1,', '"total":4}\r\n{"status":"success"}'),
        ),
    });
    await createLanguageModelClass({
      baseUrl: 'http://lmtab.test',
      model: 'gone',
      fetch: pulled.fetch,
    }).create({
      monitor: (m) =>
        m.addEventListener('downloadprogress', (e) => progress.push((e as ProgressEvent).loaded)),
    });
    expect(progress).toEqual([0, 0.25, 1]);
    const broken = fakeLmtab(['completion'], {
      '/api/pull': () =>
        new Response(
          pieces(
            '{"completed":1,"total":4}\n{"error":"The hub broke off.","code":"download_failed"}\n',
          ),
        ),
    });
    const failed = await createLanguageModelClass({
      baseUrl: 'http://lmtab.test',
      model: 'gone',
      fetch: broken.fetch,
    })
      .create()
      .catch((caught: unknown) => caught);
    expect(failed).toMatchObject({
      name: 'NetworkError',
      message: 'The download failed (download_failed): The hub broke off.',
      cause: { code: 'download_failed' },
    });
  });
});

describe("lmtab's LanguageModel stream cancel", () => {
  it('cancelling a stream that waits on its next token ends at once and aborts the request', async () => {
    let sent: AbortSignal | undefined;
    const { fetch } = fakeLmtab();
    const LanguageModel = createLanguageModelClass({
      baseUrl: 'http://lmtab.test',
      model: 'tiny',
      fetch: ((url: string, init?: RequestInit) => {
        if (!url.endsWith('/v1/chat/completions')) return fetch(url, init);
        sent = init?.signal ?? undefined;
        // One token, then nothing: the body stays open until the request is aborted.
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(`data: ${delta('Hel')}\n\n`));
            sent?.addEventListener('abort', () => controller.error(sent?.reason));
          },
        });
        return Promise.resolve(
          new Response(body, { headers: { 'Content-Type': 'text/event-stream' } }),
        );
      }) as typeof globalThis.fetch,
    });
    const model = await LanguageModel.create();
    const reader = model.promptStreaming('Hi').getReader();
    expect(await reader.read()).toEqual({ value: 'Hel', done: false });
    const pending = reader.read();
    await reader.cancel();
    expect(await pending).toEqual({ value: undefined, done: true });
    expect(sent?.aborted).toBe(true);
  });
});

describe("lmtab's LanguageModel errors by lmtab's code", () => {
  const overflow = 'The prompt has 300 tokens; the context holds 128.';

  it.each([
    ['context_length_exceeded', 400, 'QuotaExceededError'],
    ['invalid_request', 400, 'NotSupportedError'],
    ['engine_busy', 503, 'OperationError'],
    ['engine_failure', 500, 'OperationError'],
    ['model_not_found', 404, 'OperationError'],
  ])('an answer with %s (HTTP %i) becomes %s, code kept', async (code, status, name) => {
    const model = await session({
      '/v1/chat/completions': () => openAiError(status, code, 'It failed.'),
    });
    const error = await model.prompt('Hi').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DOMException);
    expect(error).toMatchObject({
      name,
      message: `lmtab answered ${code}: It failed.`,
      cause: { code },
    });
  });

  it("a context overflow is a QuotaExceededError with the session's context window as its quota", async () => {
    const model = await session({
      '/v1/chat/completions': () => openAiError(400, 'context_length_exceeded', overflow),
    });
    const error = await model.prompt('Hi').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'QuotaExceededError', quota: 128, requested: null });
    // The same from a streamed prompt, refused before its stream began or in an error event.
    const streamed = await read(model.promptStreaming('Hi')).catch((caught: unknown) => caught);
    expect(streamed).toMatchObject({
      name: 'QuotaExceededError',
      cause: { code: 'context_length_exceeded' },
    });
    const midway = await session({
      '/v1/chat/completions': () =>
        sse(
          `data: ${delta('Hel')}\n\n`,
          `data: ${JSON.stringify({ error: { message: overflow, type: 'x', param: null, code: 'context_length_exceeded' } })}\n\n`,
        ),
    });
    const failed = await read(midway.promptStreaming('Hi')).catch((caught: unknown) => caught);
    expect(failed).toMatchObject({
      name: 'QuotaExceededError',
      message: `lmtab answered context_length_exceeded: ${overflow}`,
    });
  });

  it('an error event midway with another code is an OperationError, code kept', async () => {
    const model = await session({
      '/v1/chat/completions': () =>
        sse(
          `data: ${JSON.stringify({ error: { message: 'Lost.', type: 'x', param: null, code: 'no_engine' } })}\n\n`,
        ),
    });
    const error = await read(model.promptStreaming('Hi')).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'OperationError', cause: { code: 'no_engine' } });
  });

  it("reads the code of /api's answers from their header, and an answer without one as unexpected_response", async () => {
    const { fetch } = fakeLmtab(['completion'], {
      '/api/generate': () => nativeError(404, 'model_not_found', 'No model tiny.'),
    });
    const LanguageModel = createLanguageModelClass({
      baseUrl: 'http://lmtab.test',
      model: 'tiny',
      fetch,
    });
    await expect(LanguageModel.create()).rejects.toMatchObject({
      name: 'OperationError',
      message: 'lmtab answered model_not_found: No model tiny.',
      cause: { code: 'model_not_found' },
    });
    const model = await session({
      '/v1/chat/completions': () => new Response('Bad request (a proxy)', { status: 400 }),
    });
    const error = await model.prompt('Hi').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'OperationError', cause: { code: 'unexpected_response' } });
  });
});
