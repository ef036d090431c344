import { expect, test } from '@playwright/test';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ollama } from 'ollama';
import OpenAI, { APIError, AuthenticationError, BadRequestError, NotFoundError } from 'openai';
import WebSocket from 'ws';
import type { Relay } from '../../src/relay/index.js';
import { importModel, openTab, pngDataUri } from './support/app.js';
import { drain, hello, openAiClient } from './support/relay-clients.js';
import {
  openEngineTab,
  openPage,
  relayPorts,
  startRelay,
  type EngineTab,
} from './support/relay.js';

/** POSTs a body in chunked encoding (no Content-Length), answering the status and body. */
function postChunked(url: string, pieces: Buffer[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: 'POST', headers: { 'Content-Type': 'application/json' } },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => void (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
    for (const piece of pieces) request.write(piece);
    request.end();
  });
}

test.describe.serial('the relay with engine tabs, and real OpenAI and Ollama clients', () => {
  let relay: Relay;
  let first: EngineTab;
  const tabs: EngineTab[] = [];
  const model = 'tiny-lfm2';

  test.beforeAll(async () => {
    relay = await startRelay(relayPorts.engines, { queueLimit: 4, maxBodyBytes: 2 * 1024 * 1024 });
  });

  test.afterAll(async () => {
    for (const tab of tabs) await tab.context.close();
    await relay.close();
  });

  test('the Developer panel starts and stops serving, shows the base URL, snippets and a live request log', async ({
    browser,
  }) => {
    const context = await browser.newContext();
    const page = await context.newPage();
    first = { context, page };
    tabs.push(first);
    // The link `lmtab serve` prints: the page keeps the relay's secret for Start Server.
    await openPage(page, relay.appUrl());
    await importModel(page, 'tiny-lfm2-vl.gguf', 'mmproj-tiny-lfm2-vl.gguf');
    await importModel(page, 'tiny-lfm2moe.gguf');
    await importModel(page, 'tiny-lfm2.gguf');

    await openTab(page, 'Developer');
    const panel = page.locator('lmtab-server-panel');
    await expect(panel.getByTestId('base-url')).toHaveText(`${relay.url}/v1`);
    await expect(panel.getByTestId('lan-url')).toHaveCount(0);
    await panel.getByText('Code snippets').click();
    await expect(panel.getByText(`curl ${relay.url}/v1/chat/completions`)).toBeVisible();
    await expect(panel.getByText(`baseURL: '${relay.url}/v1'`)).toBeVisible();
    await expect(panel.getByTestId('server-state')).toHaveText('Stopped');
    expect(relay.stats().engines).toHaveLength(0);

    await panel.getByRole('button', { name: 'Start Server' }).click();
    await expect(panel.getByTestId('server-state')).toHaveText('Running');
    await expect.poll(() => relay.stats().engines.length).toBe(1);
    await expect(panel.getByText('1 engine tab connected to the relay')).toBeVisible();

    const answer = await openAiClient(relay).chat.completions.create({
      model,
      messages: hello,
      max_tokens: 6,
      temperature: 0,
    });
    const row = panel.getByTestId('request-log-row').first();
    await expect(row).toContainText('POST');
    await expect(row).toContainText('/v1/chat/completions');
    await expect(row).toContainText(model);
    await expect(row).toContainText('200');
    await expect(row).toContainText(`${answer.usage?.completion_tokens}`);
    await expect(row).toContainText(' ms');

    await panel.getByRole('button', { name: 'Stop Server' }).click();
    await expect(panel.getByTestId('server-state')).toHaveText('Stopped');
    await expect.poll(() => relay.stats().engines.length).toBe(0);
    await panel.getByRole('button', { name: 'Start Server' }).click();
    await expect.poll(() => relay.stats().engines.length).toBe(1);
  });

  test('OpenAI client: a chat completion, with the relay overhead measured', async () => {
    const openai = openAiClient(relay);
    const answer = await openai.chat.completions.create({
      model,
      messages: hello,
      max_tokens: 12,
      temperature: 0,
    });
    expect(answer.object).toBe('chat.completion');
    expect(answer.model).toBe(model);
    expect(answer.choices[0].message.content?.length).toBeGreaterThan(0);
    expect(answer.usage?.prompt_tokens).toBeGreaterThan(0);

    // Round trips with no model work: client -> relay -> WebSocket -> tab -> engine worker and back.
    const trips: number[] = [];
    for (let i = 0; i < 20; i += 1) {
      const started = performance.now();
      const version = await fetch(`${relay.url}/api/version`);
      expect(version.status).toBe(200);
      await version.json();
      trips.push(performance.now() - started);
    }
    trips.sort((a, b) => a - b);
    // A generation timed by the engine and by the client: the difference is the transport's.
    const ollama = new Ollama({ host: relay.url });
    const started = performance.now();
    const chat = await ollama.chat({
      model,
      messages: hello,
      options: { num_predict: 16, temperature: 0 },
    });
    const wallMs = performance.now() - started;
    const engineMs = chat.total_duration / 1e6;
    test.info().annotations.push({
      type: 'relay overhead',
      description:
        `GET /api/version round trip median ${trips[10].toFixed(1)} ms (min ${trips[0].toFixed(1)}); ` +
        `chat wall ${wallMs.toFixed(1)} ms vs engine total_duration ${engineMs.toFixed(1)} ms`,
    });
    expect(trips[10]).toBeLessThan(1000);
  });

  test('OpenAI client: a streamed chat completion ends with [DONE] and usage', async () => {
    const stream = await openAiClient(relay).chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Tell me a story' }],
      max_tokens: 16,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
    const deltas: string[] = [];
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) deltas.push(chunk.choices[0].delta.content);
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(deltas.length).toBeGreaterThan(1);
    expect(['stop', 'length']).toContain(finish);
    expect(usage?.completion_tokens).toBe(deltas.length);

    const raw = await fetch(`${relay.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model, messages: hello, max_tokens: 4, stream: true }),
    });
    expect(raw.headers.get('content-type')).toContain('text/event-stream');
    const text = await raw.text();
    expect(text.startsWith('data: {')).toBe(true);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  test('OpenAI client: an image goes to the vision model', async () => {
    const image = await pngDataUri(first.page);
    const answer = await openAiClient(relay).chat.completions.create({
      model: 'tiny-lfm2-vl',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image_url', image_url: { url: image } },
          ],
        },
      ],
      max_tokens: 8,
      temperature: 0,
    });
    expect(answer.choices[0].message.content?.length).toBeGreaterThan(0);
    // The projector turns the image into dozens of tokens; text alone would be a handful.
    expect(answer.usage?.prompt_tokens).toBeGreaterThan(40);
  });

  test('an image URL on a server that never answers fails after the connect limit and frees the slot', async () => {
    // Accepts the connection, never answers.
    const silent = createServer(() => undefined);
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/cat.png`;
    try {
      const started = Date.now();
      const error = await openAiClient(relay)
        .chat.completions.create({
          model: 'tiny-lfm2-vl',
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'What is in this picture?' },
                { type: 'image_url', image_url: { url } },
              ],
            },
          ],
          max_tokens: 4,
        })
        .catch((caught: unknown) => caught);
      const elapsed = Date.now() - started;
      expect(error).toBeInstanceOf(BadRequestError);
      expect((error as APIError).message).toContain(
        'sent no answer within 10 s (the connect limit)',
      );
      expect(elapsed).toBeGreaterThanOrEqual(9_000);
      expect(elapsed).toBeLessThan(30_000);
      expect(relay.stats().engines.every((engine) => engine.active === 0)).toBe(true);
      const next = await openAiClient(relay).chat.completions.create({
        model,
        messages: hello,
        max_tokens: 4,
      });
      expect(next.choices[0].message.content?.length).toBeGreaterThan(0);
    } finally {
      silent.closeAllConnections();
      await new Promise((done) => silent.close(done));
    }
  });

  test('OpenAI client: errors keep their status and code through the relay; a chunked body over the limit is 413', async () => {
    const openai = openAiClient(relay);
    const missing = await openai.chat.completions
      .create({ model: 'no-such-model', messages: hello })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect((missing as NotFoundError).code).toBe('model_not_found');

    const invalid = await openai.chat.completions
      .create({ model, messages: hello, temperature: 'hot' as unknown as number })
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(BadRequestError);
    expect((invalid as BadRequestError).param).toBe('temperature');

    const unknownPath = await fetch(`${relay.url}/v1/nothing-here`);
    expect(unknownPath.status).toBe(404);

    const piece = Buffer.alloc(512 * 1024, 0x20);
    const tooLarge = await postChunked(`${relay.url}/v1/chat/completions`, [
      Buffer.from('{"model":"tiny-lfm2","messages":[],"pad":"'),
      ...Array.from({ length: 5 }, () => piece),
      Buffer.from('"}'),
    ]);
    expect(tooLarge.status).toBe(413);
    expect(JSON.parse(tooLarge.body).error.code).toBe('body_too_large');
    await expect.poll(() => relay.stats().engines[0].active).toBe(0);
  });

  test('Ollama client: chat, generate, list, show, ps, version and delete', async () => {
    const ollama = new Ollama({ host: relay.url });
    const chat = await ollama.chat({
      model,
      messages: hello,
      options: { num_predict: 8, temperature: 0 },
    });
    expect(chat.message.role).toBe('assistant');
    expect(chat.message.content.length).toBeGreaterThan(0);
    expect(chat.done).toBe(true);
    expect(['stop', 'length']).toContain(chat.done_reason);
    for (const field of [
      'total_duration',
      'load_duration',
      'prompt_eval_count',
      'prompt_eval_duration',
      'eval_count',
      'eval_duration',
    ] as const) {
      expect(typeof chat[field]).toBe('number');
    }
    expect(chat.eval_count).toBeGreaterThan(0);
    // Nanoseconds: a generation of several tokens takes more than a microsecond.
    expect(chat.total_duration).toBeGreaterThan(1000);

    const parts: string[] = [];
    let last: { done: boolean; eval_count?: number } | undefined;
    for await (const part of await ollama.chat({
      model,
      messages: hello,
      stream: true,
      options: { num_predict: 8, temperature: 0 },
    })) {
      parts.push(part.message.content);
      last = part;
    }
    expect(parts.length).toBeGreaterThan(1);
    expect(last?.done).toBe(true);
    expect(last?.eval_count).toBeGreaterThan(0);

    const generated = await ollama.generate({
      model,
      prompt: 'Once upon a time',
      options: { num_predict: 8, temperature: 0 },
    });
    expect(generated.response?.length).toBeGreaterThan(0);
    expect(generated.done).toBe(true);
    expect(generated.eval_count).toBeGreaterThan(0);
    let streamed = '';
    for await (const part of await ollama.generate({
      model,
      prompt: 'Once upon a time',
      stream: true,
      options: { num_predict: 8, temperature: 0 },
    })) {
      streamed += part.response;
    }
    expect(streamed).toBe(generated.response);

    const names = (await ollama.list()).models.map((m) => m.name);
    expect(names).toEqual(expect.arrayContaining([model, 'tiny-lfm2-vl', 'tiny-lfm2moe']));
    const shown = await ollama.show({ model });
    expect(shown.details.family).toBe('lfm2');
    expect(shown.modelfile).toContain('FROM');
    const ps = await ollama.ps();
    expect(ps.models.map((m) => m.name)).toContain(model);
    expect((await ollama.version()).version).toMatch(/^\d+\.\d+\.\d+/);

    await ollama.delete({ model: 'tiny-lfm2moe' });
    const after = (await ollama.list()).models.map((m) => m.name);
    expect(after).not.toContain('tiny-lfm2moe');
    await expect(ollama.show({ model: 'tiny-lfm2moe' })).rejects.toThrow(/tiny-lfm2moe/);
  });

  test('a client that goes away aborts its generation in the tab and frees the slot', async () => {
    const openai = openAiClient(relay);
    const story = [{ role: 'user' as const, content: 'Write a very long story' }];
    // This prompt does not stop early: unaborted, it runs to its token limit.
    const baseline = await openai.chat.completions.create({
      model,
      messages: story,
      max_tokens: 48,
      temperature: 0,
    });
    expect(baseline.choices[0].finish_reason).toBe('length');

    const stream = await openai.chat.completions.create({
      model,
      messages: story,
      max_tokens: 4000,
      temperature: 0,
      stream: true,
    });
    let chunks = 0;
    for await (const _chunk of stream) {
      chunks += 1;
      expect(relay.stats().engines[0].active).toBe(1);
      if (chunks === 3) break;
    }
    const abortedAt = performance.now();
    await expect.poll(() => relay.stats().engines[0].active, { intervals: [20] }).toBe(0);
    const slotMs = performance.now() - abortedAt;
    const engineActive = async () => {
      const engine = await (await fetch(`${relay.url}/api/lmtab/engine`)).json();
      return (engine.loaded as { model: string; active: number }[]).find((m) => m.model === model)
        ?.active;
    };
    await expect.poll(engineActive, { intervals: [50] }).toBe(0);
    const idleMs = performance.now() - abortedAt;
    test.info().annotations.push({
      type: 'abort',
      description: `relay slot freed ${slotMs.toFixed(0)} ms and engine idle ${idleMs.toFixed(0)} ms after the client left`,
    });
    // Unaborted, 4000 tokens (or the slot's context) take far longer than this.
    expect(idleMs).toBeLessThan(3000);
    // The tab's log: the stream began (200) and then was aborted.
    const aborted = first.page
      .getByTestId('request-log-row')
      .filter({ hasText: '/v1/chat/completions' })
      .filter({ hasText: '200 aborted' });
    await expect(aborted).toHaveCount(1);

    const next = await openai.chat.completions.create({ model, messages: hello, max_tokens: 4 });
    expect(next.choices[0].message.content?.length).toBeGreaterThan(0);
  });

  test('20 concurrent requests all finish or get 503 engine_busy with Retry-After', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const response = await fetch(`${relay.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            model,
            messages: [{ role: 'user', content: `Request ${i}` }],
            max_tokens: 24,
            temperature: 0,
          }),
        });
        return {
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          body: await response.json(),
        };
      }),
    );
    const served = answers.filter((a) => a.status === 200);
    const busy = answers.filter((a) => a.status === 503);
    expect(served.length + busy.length).toBe(20);
    // Four slots and four queue places take eight; the rest are turned away at once.
    expect(served.length).toBeGreaterThanOrEqual(8);
    expect(busy.length).toBeGreaterThan(0);
    for (const answer of served) {
      expect(answer.body.choices[0].message.content.length).toBeGreaterThan(0);
    }
    for (const answer of busy) {
      expect(answer.retryAfter).toBe('1');
      expect(answer.body.error.code).toBe('engine_busy');
    }
    expect(relay.stats()).toMatchObject({ waiting: 0, engines: [{ active: 0 }] });
    test.info().annotations.push({
      type: 'concurrency',
      description: `${served.length} served, ${busy.length} answered 503`,
    });
  });

  test('several tabs share the load, least busy first', async ({ browser }) => {
    tabs.push(await openEngineTab(browser, relay, [{ file: 'tiny-lfm2.gguf' }]));
    const before = relay.stats().engines.map((e) => e.served);
    await Promise.all(
      Array.from({ length: 4 }, () =>
        openAiClient(relay).chat.completions.create({
          model,
          messages: hello,
          max_tokens: 12,
          temperature: 0,
        }),
      ),
    );
    const after = relay.stats().engines.map((e) => e.served);
    expect(after.length).toBe(2);
    expect(after[0] - before[0]).toBe(2);
    expect(after[1] - before[1]).toBe(2);
  });

  test('closing the engine tab mid-stream ends the stream with an error event, and the next request is served by another tab', async ({
    browser,
  }) => {
    const openai = openAiClient(relay);
    const stream = await openai.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Write a very long story' }],
      max_tokens: 4000,
      temperature: 0,
      stream: true,
    });
    const chunks = stream[Symbol.asyncIterator]();
    await chunks.next();
    const serving = relay.stats().engines.findIndex((e) => e.active > 0);
    expect(serving).toBeGreaterThanOrEqual(0);
    const [closing] = tabs.splice(serving, 1);
    await closing.page.close();
    const error = await drain(chunks);
    expect(error).toBeInstanceOf(APIError);
    expect((error as Error).message).toContain('engine tab disconnected');
    await expect.poll(() => relay.stats().engines.length).toBe(1);
    await closing.context.close();

    const next = await openai.chat.completions.create({ model, messages: hello, max_tokens: 4 });
    expect(next.choices[0].message.content?.length).toBeGreaterThan(0);

    // The same for a native NDJSON stream: its last line is an {"error": ...} line.
    tabs.push(await openEngineTab(browser, relay, [{ file: 'tiny-lfm2.gguf' }]));
    const ollama = new Ollama({ host: relay.url });
    const parts = (
      await ollama.chat({
        model,
        messages: [{ role: 'user', content: 'Write a very long story' }],
        stream: true,
        options: { num_predict: 4000, temperature: 0 },
      })
    )[Symbol.asyncIterator]();
    await parts.next();
    const nativeServing = relay.stats().engines.findIndex((e) => e.active > 0);
    const [nativeClosing] = tabs.splice(nativeServing, 1);
    await nativeClosing.page.close();
    expect(String(await drain(parts))).toContain('engine tab disconnected');
    await nativeClosing.context.close();
    const answer = await ollama.chat({ model, messages: hello, options: { num_predict: 4 } });
    expect(answer.done).toBe(true);
    expect(relay.stats().engines).toHaveLength(1);
  });

  test('an engine tab reconnects by itself when the relay restarts', async () => {
    const [tab] = tabs;
    await relay.close();
    const panel = tab.page.locator('lmtab-server-panel');
    await expect(panel.getByTestId('server-state')).toHaveText('Reconnecting…');
    await expect(panel.getByTestId('server-detail')).toHaveText('relay stopping');
    relay = await startRelay(relayPorts.engines);
    await expect.poll(() => relay.stats().engines.length, { timeout: 10_000 }).toBe(1);
    await expect(panel.getByTestId('server-state')).toHaveText('Running');
    const answer = await openAiClient(relay).chat.completions.create({
      model,
      messages: hello,
      max_tokens: 4,
    });
    expect(answer.choices[0].message.content?.length).toBeGreaterThan(0);
  });

  test('a tab that does not hold the engine serves the relay through the service worker', async () => {
    const [host] = tabs;
    const page = await host.context.newPage();
    await openPage(page, relay.pairingUrl());
    await expect.poll(() => relay.stats().engines.length).toBe(2);
    await expect(page.locator('lmtab-app')).not.toHaveAttribute('data-engine-host', '');
    const answers = await Promise.all(
      [1, 2].map(() =>
        openAiClient(relay).chat.completions.create({ model, messages: hello, max_tokens: 4 }),
      ),
    );
    for (const answer of answers)
      expect(answer.choices[0].message.content?.length).toBeGreaterThan(0);
    expect(relay.stats().engines.map((e) => e.served)).toEqual([expect.any(Number), 1]);
    const row = page.getByTestId('request-log-row').first();
    await expect(row).toContainText('/v1/chat/completions');
    await expect(row).toContainText('200');
    await page.close();
    // The relay learns of the closed tab when its socket closes; until then it may still be
    // offered a request (which would end 503 "disconnected").
    await expect.poll(() => relay.stats().engines.length).toBe(1);
  });

  test('a socket without the relay secret is refused and receives nothing while the tabs serve requests', async () => {
    const engines = relay.stats().engines.length;
    const received: string[] = [];
    const attempt = (protocols: string[]) =>
      new Promise<{ status: number; body: string }>((resolve) => {
        const socket = new WebSocket(
          `ws://127.0.0.1:${relayPorts.engines}/lmtab/engine`,
          protocols,
        );
        socket.on('message', (data: Buffer) => received.push(data.toString()));
        socket.on('open', () => {
          // Were it let in, it would say hello and wait for requests.
          socket.send(JSON.stringify({ type: 'hello', capacity: 64 }));
          resolve({ status: 101, body: '' });
        });
        socket.on('unexpected-response', (_request, response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => void (body += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        });
        socket.on('error', () => undefined);
      });
    const none = await attempt([]);
    expect(none.status).toBe(401);
    expect(none.body).toContain('only with its secret');
    const wrong = await attempt(['lmtab-engine', `lmtab-secret.${'0'.repeat(64)}`]);
    expect(wrong.status).toBe(401);
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        openAiClient(relay).chat.completions.create({ model, messages: hello, max_tokens: 4 }),
      ),
    );
    // Served by the real tabs: tokens were generated. (Four random-weight tokens may all be
    // control tokens, such as <think>, that leave no text in `content`.)
    for (const answer of answers) expect(answer.usage?.completion_tokens).toBeGreaterThan(0);
    expect(relay.stats().engines).toHaveLength(engines);
    expect(received).toEqual([]);
  });

  test('with an API key, clients without it get 401 in their protocol and clients with it are served', async () => {
    await relay.close();
    relay = await startRelay(relayPorts.engines, {
      clientKeys: { keys: ['sk-e2e'], required: 'everyone' },
    });
    // The tab offers the secret it keeps (a relay keeps its own in LMTAB_HOME) and joins again.
    await expect.poll(() => relay.stats().engines.length, { timeout: 15_000 }).toBe(1);
    // Its Developer panel (a same-origin page on this machine) shows the key to copy.
    await expect(tabs[0].page.locator('lmtab-server-panel').getByTestId('api-key')).toHaveText(
      'sk-e2e',
    );
    const refused = await openAiClient(relay)
      .chat.completions.create({ model, messages: hello, max_tokens: 4 })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AuthenticationError);
    expect((refused as APIError).status).toBe(401);
    const keyed = new OpenAI({ baseURL: `${relay.url}/v1`, apiKey: 'sk-e2e', maxRetries: 0 });
    const answer = await keyed.chat.completions.create({
      model,
      messages: hello,
      max_tokens: 4,
      temperature: 0,
    });
    expect(answer.choices[0].message.content?.length).toBeGreaterThan(0);

    const anonymous = new Ollama({ host: relay.url });
    const nativeRefusal = (await anonymous.list().catch((error: unknown) => error)) as {
      status_code?: number;
      error?: string;
    };
    expect(nativeRefusal.status_code).toBe(401);
    expect(nativeRefusal.error).toContain('needs an API key');
    const ollama = new Ollama({ host: relay.url, headers: { Authorization: 'Bearer sk-e2e' } });
    expect((await ollama.list()).models.map((m) => m.name)).toContain(model);
    const chat = await ollama.chat({ model, messages: hello, options: { num_predict: 4 } });
    expect(chat.done).toBe(true);
  });
});
