import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  decodeBodyPiece,
  encodeBodyPiece,
  parseRelayFrame,
  type RelayToTabFrame,
} from '../bridge/wire.js';
import { createRelay, type Relay, type RelayOptions } from './create-relay.js';
import { testPorts } from '../../tests/support/test-ports.js';

// The real relay at its boundaries: HTTP on one side, a tab speaking the WebSocket frames on the
// other (a scripted one here; the e2e specs use real engine tabs in Chromium).
const port = testPorts.relayUnit;
let relay: Relay | undefined;

afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

const secret = 'a'.repeat(64);

async function start(options: Partial<RelayOptions> = {}): Promise<Relay> {
  relay = await createRelay({
    appDir: '/nonexistent',
    port,
    version: 'test',
    engineSecret: secret,
    ...options,
  });
  return relay;
}

interface FakeTab {
  socket: WebSocket;
  frames: RelayToTabFrame[];
  bodies: Map<string, string>;
  /** Resolves with the next frame of `type` (already received ones first). */
  next<K extends RelayToTabFrame['type']>(type: K): Promise<Extract<RelayToTabFrame, { type: K }>>;
  send(frame: object): void;
  sendBody(id: string, text: string): void;
}

async function connectTab(capacity = 4, bodyWindow?: number): Promise<FakeTab> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/lmtab/engine`, [
    'lmtab-engine',
    `lmtab-secret.${secret}`,
  ]);
  const frames: RelayToTabFrame[] = [];
  const bodies = new Map<string, string>();
  const waiting: Array<() => void> = [];
  socket.on('message', (data: Buffer, isBinary) => {
    if (isBinary) {
      const piece = decodeBodyPiece(data)!;
      bodies.set(piece.id, (bodies.get(piece.id) ?? '') + Buffer.from(piece.chunk).toString());
    } else {
      frames.push(parseRelayFrame(data.toString())!);
    }
    for (const wake of waiting.splice(0)) wake();
  });
  await new Promise((resolve) => socket.once('open', resolve));
  socket.send(JSON.stringify({ type: 'hello', capacity, bodyWindow }));
  await expect.poll(() => relay!.stats().engines.length).toBeGreaterThan(0);
  const seen = new Set<RelayToTabFrame>();
  return {
    socket,
    frames,
    bodies,
    async next<K extends RelayToTabFrame['type']>(type: K) {
      for (;;) {
        const found = frames.find((f) => f.type === type && !seen.has(f));
        if (found) {
          seen.add(found);
          return found as Extract<RelayToTabFrame, { type: K }>;
        }
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
    },
    send: (frame) => socket.send(JSON.stringify(frame)),
    sendBody: (id, text) => socket.send(encodeBodyPiece(id, Buffer.from(text))),
  };
}

/** An HTTP request whose body can be read piece by piece and whose socket can be cut. */
function call(path: string, body?: string) {
  const request = httpRequest(`http://127.0.0.1:${port}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
  });
  const response = new Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    text: Promise<string>;
  }>((resolve, reject) => {
    request.on('response', (incoming) => {
      let text = '';
      incoming.on('data', (chunk: Buffer) => void (text += chunk.toString()));
      const done = new Promise<string>((ok) => {
        incoming.on('end', () => ok(text));
        incoming.on('error', () => ok(text));
        incoming.on('aborted', () => ok(`${text}<aborted>`));
      });
      resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text: done });
    });
    request.on('error', reject);
  });
  request.end(body);
  return { request, response };
}

describe('createRelay with a tab on its WebSocket', () => {
  it('forwards a request as frames and streams the answer back, keeping the relay in charge of headers', async () => {
    await start();
    const tab = await connectTab();
    const { response } = call('/v1/chat/completions?x=1', '{"model":"m","messages":[]}');
    const request = await tab.next('request');
    expect(request).toMatchObject({
      method: 'POST',
      url: '/v1/chat/completions?x=1',
      hasBody: true,
    });
    const headerNames = request.type === 'request' ? request.headers.map(([n]) => n) : [];
    expect(headerNames).toContain('content-type');
    expect(headerNames).not.toContain('host');
    expect(headerNames).not.toContain('connection');
    await tab.next('end');
    expect(tab.bodies.get(request.id)).toBe('{"model":"m","messages":[]}');

    tab.send({
      type: 'head',
      id: request.id,
      status: 200,
      headers: [
        ['content-type', 'text/event-stream'],
        ['set-cookie', 'a=b'],
        ['access-control-allow-origin', '*'],
        ['x-engine', 'wllama'],
      ],
    });
    const answer = await response;
    expect(answer.status).toBe(200);
    expect(answer.headers['x-engine']).toBe('wllama');
    expect(answer.headers['set-cookie']).toBeUndefined();
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    expect(answer.headers['cross-origin-embedder-policy']).toBe('require-corp');
    tab.sendBody(request.id, 'data: {"a":1}\n\n');
    tab.sendBody(request.id, 'data: [DONE]\n\n');
    tab.send({ type: 'end', id: request.id });
    expect(await answer.text).toBe('data: {"a":1}\n\ndata: [DONE]\n\n');
    await expect.poll(() => relay!.stats().engines[0]).toMatchObject({ active: 0, served: 1 });
  });

  it('sends abort when the client goes away, and frees the slot when the tab ends the request', async () => {
    await start();
    const tab = await connectTab();
    const { request: client, response } = call('/v1/chat/completions', '{}');
    const request = await tab.next('request');
    tab.send({
      type: 'head',
      id: request.id,
      status: 200,
      headers: [['content-type', 'text/event-stream']],
    });
    await response;
    client.destroy();
    expect(await tab.next('abort')).toEqual({ type: 'abort', id: request.id });
    expect(relay!.stats().engines[0].active).toBe(1);
    tab.send({ type: 'end', id: request.id });
    await expect.poll(() => relay!.stats().engines[0].active).toBe(0);
  });

  it('ends a stream with its protocol’s error event when the tab goes away, and answers 503 before a head or a whole JSON body', async () => {
    await start();
    const tab = await connectTab();
    const sse = call('/v1/chat/completions', '{}');
    const ndjson = call('/api/chat', '{}');
    const json = call('/v1/models');
    const waiting = call('/api/tags');
    const requests = await Promise.all([1, 2, 3, 4].map(() => tab.next('request')));
    const byUrl = new Map(requests.map((r) => [r.type === 'request' ? r.url : '', r.id]));
    const head = (url: string, type: string) =>
      tab.send({
        type: 'head',
        id: byUrl.get(url),
        status: 200,
        headers: [['content-type', type]],
      });
    head('/v1/chat/completions', 'text/event-stream');
    head('/api/chat', 'application/x-ndjson');
    head('/v1/models', 'application/json');
    tab.sendBody(byUrl.get('/v1/models')!, '{"data":[');
    await Promise.all([sse.response, ndjson.response]);
    // A whole (JSON) answer's head waits for its body, so a cut still gets a clean error.
    await expect.poll(() => tab.socket.bufferedAmount).toBe(0);
    tab.socket.terminate();

    expect(await (await sse.response).text).toBe(
      'data: {"error":{"message":"The engine tab disconnected from the relay before the answer was complete.","type":"server_error","param":null,"code":"no_engine"}}\n\n',
    );
    expect(await (await ndjson.response).text).toBe(
      '{"error":"The engine tab disconnected from the relay before the answer was complete.","code":"no_engine"}\n',
    );
    const cut = await json.response;
    expect(cut.status).toBe(503);
    expect(JSON.parse(await cut.text).error).toMatchObject({ code: 'no_engine' });
    const early = await waiting.response;
    expect(early.status).toBe(503);
    expect(JSON.parse(await early.text).error).toContain('engine tab disconnected');
    await expect.poll(() => relay!.stats().engines.length).toBe(0);
  });

  it('holds a whole JSON answer’s head until its body is complete and sends it with its length; streams are not held', async () => {
    await start();
    const tab = await connectTab();
    const json = call('/v1/models');
    const sse = call('/v1/chat/completions', '{}');
    const requests = await Promise.all([1, 2].map(() => tab.next('request')));
    const byUrl = new Map(requests.map((r) => [r.type === 'request' ? r.url : '', r.id]));
    for (const [url, type] of [
      ['/v1/models', 'application/json; charset=utf-8'],
      ['/v1/chat/completions', 'text/event-stream'],
    ]) {
      tab.send({
        type: 'head',
        id: byUrl.get(url),
        status: 200,
        headers: [['content-type', type!]],
      });
      tab.sendBody(byUrl.get(url)!, url === '/v1/models' ? '{"data":' : 'data: {}\n\n');
    }
    // The stream's head is out before its end; the JSON answer's is not.
    const streamed = await sse.response;
    expect(streamed.headers['content-length']).toBeUndefined();
    let jsonHead = false;
    void json.response.then(() => (jsonHead = true));
    tab.send({ type: 'end', id: byUrl.get('/v1/chat/completions') });
    expect(await streamed.text).toBe('data: {}\n\n');
    expect(jsonHead).toBe(false);
    tab.sendBody(byUrl.get('/v1/models')!, '[]}');
    tab.send({ type: 'end', id: byUrl.get('/v1/models') });
    const whole = await json.response;
    expect(whole.headers['content-length']).toBe('11');
    expect(await whole.text).toBe('{"data":[]}');
  });

  it('streams a JSON answer past 8 MiB after all, so the relay holds no large answer', async () => {
    await start();
    const tab = await connectTab();
    const json = call('/v1/embeddings', '{}');
    const request = await tab.next('request');
    tab.send({
      type: 'head',
      id: request.id,
      status: 200,
      headers: [['content-type', 'application/json']],
    });
    const piece = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 9; i += 1) tab.sendBody(request.id, piece);
    // The head arrives before the answer's end is sent.
    const response = await json.response;
    expect(response.headers['content-length']).toBeUndefined();
    tab.send({ type: 'end', id: request.id });
    expect((await response.text).length).toBe(9 * piece.length);
  });

  it('queues beyond the tab’s capacity and answers 503 engine_busy with Retry-After past the queue', async () => {
    await start({ queueLimit: 1 });
    const tab = await connectTab(1);
    call('/api/version');
    const queued = call('/api/tags');
    const first = await tab.next('request');
    const refused = await call('/api/ps').response;
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(JSON.parse(await refused.text).error).toContain('queue holds 1');
    expect(relay!.stats().waiting).toBe(1);
    tab.send({ type: 'head', id: first.id, status: 200, headers: [] });
    tab.send({ type: 'end', id: first.id });
    const second = await tab.next('request');
    expect(second).toMatchObject({ url: '/api/tags' });
    tab.send({ type: 'error', id: second.id, code: 'model_not_found', message: 'No such model.' });
    const answer = await queued.response;
    expect(answer.status).toBe(404);
    expect(JSON.parse(await answer.text)).toEqual({ error: 'No such model.' });
  });

  it('takes the slots a tab announces after it loaded a model', async () => {
    await start();
    const tab = await connectTab(4);
    tab.send({ type: 'slots', capacity: 1 });
    await expect.poll(() => relay!.stats().engines[0]?.capacity).toBe(1);
    const calls = [call('/api/version'), call('/api/tags')];
    const first = await tab.next('request');
    await expect.poll(() => relay!.stats().waiting).toBe(1);
    tab.send({ type: 'slots', capacity: 2 });
    const second = await tab.next('request');
    expect(relay!.stats().waiting).toBe(0);
    for (const { id } of [first, second]) {
      tab.send({ type: 'head', id, status: 200, headers: [] });
      tab.send({ type: 'end', id });
    }
    for (const { response } of calls) expect((await response).status).toBe(200);
  });

  it('closes a tab that sends a malformed frame, and ignores frames for unknown ids', async () => {
    await start();
    const tab = await connectTab();
    tab.send({ type: 'end', id: 'never-sent' });
    tab.sendBody('never-sent', 'x');
    expect(relay!.stats().engines).toHaveLength(1);
    const closed = new Promise<number>((resolve) => tab.socket.once('close', resolve));
    tab.socket.send('{"type":"head","id":"1","status":"200"}');
    expect(await closed).toBe(1008);
    await expect.poll(() => relay!.stats().engines.length).toBe(0);
  });

  it('reports itself on /health', async () => {
    await start({ queueLimit: 3 });
    await connectTab(2);
    const health = await (await fetch(`http://127.0.0.1:${port}/health`)).json();
    expect(health).toEqual({
      status: 'ok',
      version: 'test',
      engines: 1,
      host: '127.0.0.1',
      port,
      lanAddresses: [],
      slots: [{ capacity: 2, active: 0, served: 0 }],
      auth: 'none',
      queue: { waiting: 0, limit: 3 },
    });
  });
});

/** A raw HTTP request with any headers (fetch cannot set Host). */
function raw(
  path: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, path, method, headers, agent: false },
      (incoming) => {
        let body = '';
        incoming.on('data', (chunk: Buffer) => void (body += chunk.toString()));
        incoming.on('end', () =>
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body }),
        );
      },
    );
    request.on('error', (e) => reject(new Error(`${method} ${path}: ${e.message}`)));
    request.end();
  });
}

/** Opens an engine socket with these subprotocols and headers: 101, or the refusal and its body. */
function tryEngineSocket(
  protocols: string[],
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; socket?: WebSocket }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/lmtab/engine`, protocols, { headers });
    socket.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => void (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    socket.on('open', () => resolve({ status: 101, body: '', socket }));
    socket.on('error', () => undefined);
  });
}

describe('createRelay: who may join, call and read', () => {
  it('refuses engine sockets without the secret, with a reason, and routes nothing to them', async () => {
    await start({ corsOrigins: ['*'] });
    const none = await tryEngineSocket([]);
    expect(none.status).toBe(401);
    expect(none.body).toContain('only with its secret');
    const wrong = await tryEngineSocket(['lmtab-engine', `lmtab-secret.${'b'.repeat(64)}`]);
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain('Wrong engine secret');
    // --cors-origin '*' opens the API to pages, never the engine socket.
    const page = await tryEngineSocket([], { Origin: 'http://evil.example' });
    expect(page.status).toBe(401);

    const tab = await connectTab();
    expect(relay!.stats().engines).toHaveLength(1);
    const { response } = call('/api/tags');
    const request = await tab.next('request');
    tab.send({
      type: 'head',
      id: request.type === 'request' ? request.id : '',
      status: 200,
      headers: [],
    });
    tab.send({ type: 'end', id: request.type === 'request' ? request.id : '' });
    expect((await response).status).toBe(200);
  });

  it('answers 403 with a hint to every route and the engine socket when Host is not its name', async () => {
    await start();
    const evil = { Host: `evil.example:${port}` };
    for (const path of ['/', '/health', '/lmtab/session', '/index.html']) {
      const answer = await raw(path, evil);
      expect(answer.status, path).toBe(403);
      expect(answer.body, path).toContain('--allowed-host evil.example');
    }
    const openAi = await raw('/v1/models', { ...evil, Origin: `http://evil.example:${port}` });
    expect(openAi.status).toBe(403);
    expect(JSON.parse(openAi.body).error.code).toBe('host_not_allowed');
    const ollama = await raw('/api/delete', evil, 'DELETE');
    expect(ollama.status).toBe(403);
    expect(JSON.parse(ollama.body).error).toContain('DNS rebinding');
    const socket = await tryEngineSocket(['lmtab-engine', `lmtab-secret.${secret}`], evil);
    expect(socket.status).toBe(403);
    expect(relay!.stats().engines).toHaveLength(0);
    // Its own names pass.
    expect((await raw('/health', { Host: `localhost:${port}` })).status).toBe(200);
    await relay!.close();
    await start({ allowedHosts: ['evil.example'] });
    expect((await raw('/health', evil)).status).toBe(200);
  });

  it('with API keys: 401 in each protocol shape without one, forwarded with one, credentials stripped', async () => {
    await start({ clientKeys: { keys: ['sk-test'], required: 'everyone' } });
    const tab = await connectTab();
    const openAi = await raw('/v1/models', {});
    expect(openAi.status).toBe(401);
    expect(openAi.headers['www-authenticate']).toBe('Bearer');
    expect(JSON.parse(openAi.body).error).toMatchObject({
      code: 'unauthorized',
      type: 'authentication_error',
    });
    const ollama = await raw('/api/tags', { Authorization: 'Bearer wrong' });
    expect(ollama.status).toBe(401);
    expect(JSON.parse(ollama.body).error).toContain('not one of this relay');
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);

    for (const headers of [
      { Authorization: 'Bearer sk-test', Cookie: 'session=1' } as Record<string, string>,
      { 'x-api-key': 'sk-test', 'Proxy-Authorization': 'Basic eDp5' },
    ]) {
      const pending = raw('/api/tags', headers);
      const request = await tab.next('request');
      if (request.type !== 'request') throw new Error('expected a request frame');
      const names = request.headers.map(([name]) => name);
      for (const credential of ['authorization', 'cookie', 'x-api-key', 'proxy-authorization']) {
        expect(names).not.toContain(credential);
      }
      tab.send({ type: 'head', id: request.id, status: 200, headers: [] });
      tab.send({ type: 'end', id: request.id });
      expect((await pending).status).toBe(200);
    }
  });

  it('tells its secret and key only to a page that shows the secret, on loopback, never with CORS', async () => {
    await start({ corsOrigins: ['*'], clientKeys: { keys: ['sk-test'], required: 'everyone' } });
    const page = await raw('/lmtab/session', { Authorization: `Bearer ${secret}` });
    expect(page.status).toBe(200);
    expect(JSON.parse(page.body)).toEqual({ engineSecret: secret, apiKey: 'sk-test' });
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['access-control-allow-origin']).toBeUndefined();
    // A header any local program can send proves nothing: other users of this machine get neither.
    const forged = await raw('/lmtab/session', { 'Sec-Fetch-Site': 'same-origin' });
    expect(forged.status).toBe(401);
    expect(forged.body).toContain('only to a page that holds its engine secret');
    for (const headers of [
      {} as Record<string, string>,
      { Authorization: `Bearer ${'0'.repeat(64)}` },
      { Authorization: 'Bearer sk-test' },
      { Authorization: `Bearer ${secret}`, Origin: 'http://evil.example' },
      { Authorization: `Bearer ${secret}`, 'X-Forwarded-For': '203.0.113.9' },
      { Authorization: `Bearer ${secret}`, Host: `127.0.0.1.nip.io:${port}` },
    ]) {
      const refused = await raw('/lmtab/session', headers);
      expect([401, 403], JSON.stringify(headers)).toContain(refused.status);
      expect(refused.body).not.toContain(secret);
      expect(refused.body).not.toContain('sk-test');
      expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('ends a request whose engine stays silent with engine_timeout and frees its slot', async () => {
    await start({ engineTimeoutMs: 300 });
    const tab = await connectTab(1);
    const started = Date.now();
    const { response } = call('/v1/chat/completions', '{"model":"m","messages":[]}');
    await tab.next('request');
    const answer = await response;
    expect(answer.status).toBe(504);
    expect(JSON.parse(await answer.text).error.code).toBe('engine_timeout');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await tab.next('abort')).toMatchObject({ type: 'abort' });
    expect(relay!.stats().engines[0].active).toBe(0);

    // Silent in the middle of a stream: the stream ends with its protocol's error event.
    const streamed = call('/api/chat', '{"model":"m","messages":[]}');
    const request = await tab.next('request');
    const id = request.type === 'request' ? request.id : '';
    tab.send({
      type: 'head',
      id,
      status: 200,
      headers: [['content-type', 'application/x-ndjson']],
    });
    tab.sendBody(id, '{"done":false}\n');
    const stream = await streamed.response;
    expect(stream.status).toBe(200);
    const text = await stream.text;
    expect(text).toContain('{"done":false}');
    expect(text).toContain('The engine sent nothing for 0.3 s in the middle of its answer');
    expect(relay!.stats().engines[0].active).toBe(0);
  });

  it('carries a Realtime WebSocket to a tab as NDJSON lines, with the key as a header or a browser subprotocol', async () => {
    await start({ clientKeys: { keys: ['sk-test'], required: 'everyone' } });
    const tab = await connectTab();
    const url = `ws://127.0.0.1:${port}/v1/realtime?model=m`;
    const status = (ws: WebSocket) =>
      new Promise<number>((resolve) => {
        ws.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
        ws.on('open', () => resolve(101));
      });
    expect(await status(new WebSocket(url))).toBe(401);
    expect(await status(new WebSocket(url, { headers: { Authorization: 'Bearer wrong' } }))).toBe(
      401,
    );
    expect(
      await status(
        new WebSocket(url, {
          headers: { Origin: 'https://evil.example', Authorization: 'Bearer sk-test' },
        }),
      ),
    ).toBe(403);
    // A browser's key comes as a subprotocol; the relay answers `realtime`, never the key.
    const ws = new WebSocket(url, ['realtime', 'openai-insecure-api-key.sk-test']);
    const messages: string[] = [];
    ws.on('message', (data: Buffer) => messages.push(data.toString()));
    expect(await status(ws)).toBe(101);
    expect(ws.protocol).toBe('realtime');
    const request = await tab.next('request');
    if (request.type !== 'request') throw new Error('expected a request frame');
    expect(request).toMatchObject({ method: 'POST', url: '/v1/realtime?model=m', hasBody: true });
    expect(request.headers).toEqual([['content-type', 'application/x-ndjson']]);
    tab.send({
      type: 'head',
      id: request.id,
      status: 200,
      headers: [['content-type', 'application/x-ndjson']],
    });
    tab.sendBody(request.id, '{"type":"session.created"}\n{"type":"respo');
    tab.sendBody(request.id, 'nse.done"}\n');
    await expect
      .poll(() => messages)
      .toEqual(['{"type":"session.created"}', '{"type":"response.done"}']);
    ws.send('{"type":"response.create"}');
    ws.send('{"type":"input_audio_buffer.commit"}');
    await expect
      .poll(() => tab.bodies.get(request.id))
      .toBe('{"type":"response.create"}\n{"type":"input_audio_buffer.commit"}\n');
    // A line break inside a message would split it in two events: refused, not forwarded.
    ws.send('{"type":\n"x"}');
    await expect.poll(() => messages.at(-1) ?? '').toContain('line break');
    ws.close();
    expect(await tab.next('abort')).toMatchObject({ id: request.id });
    tab.send({ type: 'end', id: request.id });
    await expect.poll(() => relay!.stats().engines[0].active).toBe(0);
  });

  it('paces a Realtime client by the tab’s credit: no more than its window is ahead of its reads', async () => {
    await start();
    const tab = await connectTab(4, 100);
    const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/realtime?model=m`);
    await new Promise((resolve) => ws.once('open', resolve));
    const request = await tab.next('request');
    if (request.type !== 'request') throw new Error('expected a request frame');
    const event = JSON.stringify({ type: 'input_audio_buffer.append', audio: 'A'.repeat(30) });
    for (let i = 0; i < 10; i++) ws.send(event);
    const line = event.length + 1;
    await expect.poll(() => tab.bodies.get(request.id)?.length ?? 0).toBe(100);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(tab.bodies.get(request.id)!.length).toBe(100);
    // Each credit lets as much more through, until all ten events are there, whole and in order.
    for (let sent = 100; sent < 10 * line; sent += 100) {
      tab.send({ type: 'credit', id: request.id, bytes: 100 });
      await expect
        .poll(() => tab.bodies.get(request.id)!.length)
        .toBe(Math.min(sent + 100, 10 * line));
    }
    expect(tab.bodies.get(request.id)).toBe(`${event}\n`.repeat(10));
    ws.close();
  });

  it('turns a tab’s refusal of a Realtime session into an error event and closes the socket', async () => {
    await start();
    const tab = await connectTab();
    const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/realtime?model=nope`);
    const messages: string[] = [];
    ws.on('message', (data: Buffer) => messages.push(data.toString()));
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    const request = await tab.next('request');
    if (request.type !== 'request') throw new Error('expected a request frame');
    tab.send({
      type: 'head',
      id: request.id,
      status: 404,
      headers: [['content-type', 'application/json']],
    });
    tab.sendBody(
      request.id,
      JSON.stringify({
        error: {
          message: 'Model "nope" not found.',
          type: 'invalid_request_error',
          param: 'model',
          code: 'model_not_found',
        },
      }),
    );
    tab.send({ type: 'end', id: request.id });
    expect(await closed).toBe(1008);
    expect(JSON.parse(messages[0]!)).toMatchObject({
      type: 'error',
      error: { code: 'model_not_found', message: 'Model "nope" not found.', param: 'model' },
    });
  });
});
