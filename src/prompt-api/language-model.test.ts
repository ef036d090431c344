import { describe, expect, it } from 'vitest';
import { createLanguageModelClass } from './language-model.js';

/**
 * A fetch that records each request and answers as lmtab's API would, for a stored `tiny` with
 * `capabilities` (`/api/show`'s).
 */
function fakeLmtab(capabilities = ['completion']) {
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
