import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { testPorts } from '../../tests/support/test-ports.js';
import { createRelay, type Relay, type RelayOptions } from './create-relay.js';
import type { RouterHarnessOptions } from '../api/testing/router-harness.js';
import { connectRouterEngine, type RouterEngine } from './testing/router-engine.js';

// Hostile requests as raw bytes at the real relay, with the real router behind the real bridge.
const port = testPorts.relayHardening;
const secret = 'b'.repeat(64);
let relay: Relay | undefined;
let engine: RouterEngine | undefined;

afterEach(async () => {
  engine?.close();
  engine = undefined;
  await relay?.close();
  relay = undefined;
});

/** Starts the relay with `options` and one engine tab whose router runs `engineOptions`. */
async function start(
  options: Partial<RelayOptions> = {},
  engineOptions: RouterHarnessOptions = {},
): Promise<Relay> {
  relay = await createRelay({
    appDir: '/nonexistent',
    port,
    version: 'test',
    engineSecret: secret,
    ...options,
  });
  engine = await connectRouterEngine(relay, secret, engineOptions);
  return relay;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * Sends a request with node:http and reads the whole answer; rejects with the socket error
 * (`EPIPE`, `ECONNRESET`) when the client never gets to read one.
 */
function send(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: Buffer | Buffer[] } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({
      host: '127.0.0.1',
      port,
      path,
      method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
      headers: { 'Content-Type': 'application/json', ...options.headers },
    });
    request.on('response', (incoming) => {
      let text = '';
      incoming.on('data', (chunk: Buffer) => void (text += chunk.toString()));
      incoming.on('end', () =>
        resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text }),
      );
      incoming.on('error', reject);
    });
    request.on('error', reject);
    const pieces = Array.isArray(options.body) ? options.body : [options.body];
    for (const piece of pieces) if (piece !== undefined) request.write(piece);
    request.end();
  });
}

/** Writes raw bytes on a socket and reads everything the server sends back until it closes. */
function raw(bytes: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => void (text += chunk.toString()));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.end(bytes);
  });
}

/**
 * Sends a request head and a body as raw bytes without reading anything until the whole body is
 * written, as a client busy uploading does; then reads the answer. A server that closes after an
 * early answer makes the kernel throw that unread answer away (the client sees only a reset).
 */
function uploadThenRead(head: string, body: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.pause();
    let text = '';
    socket.on('data', (chunk) => void (text += chunk.toString()));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.write(head);
    socket.write(body, () => {
      socket.resume();
      socket.end();
    });
  });
}

const deep = (depth: number) => Buffer.from('['.repeat(depth) + ']'.repeat(depth));

describe('hostile requests at the relay', () => {
  it('answers JSON nested 100,000 deep with a 400 in each protocol’s shape, naming the limit', async () => {
    await start();
    const paths = [
      '/v1/chat/completions',
      '/v1/completions',
      '/v1/embeddings',
      '/v1/responses',
      '/v1/messages',
      '/api/chat',
      '/api/generate',
      '/api/pull',
      '/api/create',
    ];
    for (const path of paths) {
      for (const body of [
        deep(100_000),
        Buffer.from(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`),
      ]) {
        const answer = await send(path, { body });
        expect(answer.status, path).toBe(400);
        const json = JSON.parse(answer.text) as Record<string, unknown>;
        const message = path.startsWith('/api/')
          ? json.error
          : (json.error as { message: string }).message;
        expect(message, path).toMatch(
          /^JSON nested too deeply in the request body: expected at most 128 levels/,
        );
        if (path === '/v1/messages') expect(json.type).toBe('error');
        if (!path.startsWith('/api/') && path !== '/v1/messages') {
          expect(json.error).toMatchObject({
            type: 'invalid_request_error',
            code: 'invalid_request',
          });
        }
      }
    }
  });

  it('lets a client sending 40 MB read the 413 instead of EPIPE, with and without Content-Length', async () => {
    await start();
    const big = Buffer.alloc(40_000_000, 0x20);
    for (const path of ['/v1/chat/completions', '/api/chat', '/v1/messages']) {
      const declared = await send(path, {
        body: big,
        headers: { 'Content-Length': String(big.byteLength) },
      });
      expect(declared.status, path).toBe(413);
      expect(declared.headers.connection).toBe('close');
      expect(declared.text).toContain(
        "Request body too large: the relay's limit is 33554432 bytes (32 MiB), the Content-Length header says 40000000 bytes",
      );
      const pieces = Array.from({ length: 40 }, () => Buffer.alloc(1_000_000, 0x20));
      const chunked = await send(path, {
        body: pieces,
        headers: { 'Transfer-Encoding': 'chunked' },
      });
      expect(chunked.status, path).toBe(413);
      expect(chunked.text).toContain('received at least');
    }
  });

  it('keeps reading a refused upload so that the answer is not lost to a reset', async () => {
    await start();
    const big = Buffer.alloc(40_000_000, 0x20);
    const answer = await uploadThenRead(
      'POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
        `Content-Type: application/json\r\nContent-Length: ${big.byteLength}\r\n\r\n`,
      big,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(answer).toContain('Connection: close');
    expect(answer).toContain('"code":"body_too_large"');
  });

  it('lets the client read an answer the engine gives before the whole body arrived', async () => {
    await start({}, { maxBodyBytes: 1024 * 1024 });
    const pieces = Array.from({ length: 20 }, () => Buffer.alloc(1_000_000, 0x20));
    const answer = await send('/v1/chat/completions', {
      body: pieces,
      headers: { 'Transfer-Encoding': 'chunked' },
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'body_too_large' } });
  });

  it('answers a 100 KB URL with 414 and 100 KB of headers with 431, in the path’s shape', async () => {
    await start();
    const url = await send(`/v1/models?q=${'a'.repeat(100_000)}`);
    expect(url.status).toBe(414);
    expect(JSON.parse(url.text)).toMatchObject({
      error: {
        message: expect.stringContaining(
          'Request URL too long: expected the request line (method, path and query) to fit in 16 KiB',
        ),
        type: 'invalid_request_error',
      },
    });
    const native = await send(`/api/tags?q=${'a'.repeat(100_000)}`);
    expect(native.status).toBe(414);
    expect(JSON.parse(native.text).error).toMatch(/^Request URL too long/);

    const headers = await send('/api/tags', { headers: { 'X-Big': 'b'.repeat(100_000) } });
    expect(headers.status).toBe(431);
    expect(JSON.parse(headers.text).error).toMatch(
      /^Request headers too large: expected the request line and headers to fit in 16 KiB/,
    );
  });

  it('answers once when body bytes without framing follow a request it answers (found by fuzzing)', async () => {
    await start();
    const answer = await raw(
      'DELETE /api/delete HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n{}',
    );
    expect(answer.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 403']);
    expect(answer).toContain('DNS rebinding');
  });

  it('aborts the exchange of a client that ends its connection mid-body (an upload given up)', async () => {
    await start();
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      'POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n{"model":',
    );
    const active = () => relay!.stats().engines.reduce((sum, e) => sum + e.active, 0);
    await expect.poll(active, { timeout: 3000 }).toBe(1);
    socket.end();
    // Not left waiting for the rest of the body until --engine-timeout (10 min).
    await expect.poll(active, { timeout: 3000 }).toBe(0);
  });

  it('answers bytes that are not HTTP with a 400 that says so', async () => {
    await start();
    const answer = await raw(
      'GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: x\r\n\r\n',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toContain('Malformed HTTP request: expected HTTP/1.1');
    expect(answer).toContain('"type":"invalid_request_error"');
  });

  it('with a key for other devices, a request through a proxy on this host needs it too', async () => {
    await start({ clientKeys: { keys: ['made-key'], required: 'remote' } });
    expect((await send('/api/tags')).status).toBe(200);
    const proxies: Record<string, string>[] = [
      { 'X-Forwarded-For': '203.0.113.9' },
      { Forwarded: 'for=203.0.113.9;proto=https' },
    ];
    for (const header of proxies) {
      const proxied = await send('/api/tags', { headers: header });
      expect(proxied.status).toBe(401);
      expect(JSON.parse(proxied.text).error).toContain('This relay needs an API key');
      const anthropic = await send('/v1/messages', { headers: header, body: Buffer.from('{}') });
      expect(anthropic.status).toBe(401);
      expect(JSON.parse(anthropic.text)).toMatchObject({
        type: 'error',
        error: { type: 'authentication_error' },
      });
      const keyed = await send('/api/tags', {
        headers: { ...header, Authorization: 'Bearer made-key' },
      });
      expect(keyed.status).toBe(200);
    }
  });

  it('stopping lets an answer in progress finish, and refuses new requests meanwhile', async () => {
    const live = await start({}, { script: () => ({ delayMs: 400 }) });
    const chat = (stream: boolean) =>
      send('/v1/chat/completions', {
        body: Buffer.from(
          JSON.stringify({
            model: 'lfm2-350m',
            messages: [{ role: 'user', content: 'Hi' }],
            stream,
          }),
        ),
      });
    const whole = chat(false);
    const streamed = chat(true);
    await expect.poll(() => live.stats().engines[0]?.active).toBe(2);
    const stopping = live.close();
    relay = undefined;
    const [wholeAnswer, streamedAnswer] = await Promise.all([whole, streamed]);
    await stopping;
    expect(wholeAnswer.status).toBe(200);
    expect(JSON.parse(wholeAnswer.text).choices[0].message.content).toBe('Hello, world');
    expect(streamedAnswer.text.trim().endsWith('data: [DONE]')).toBe(true);
    expect(streamedAnswer.text).not.toContain('"error"');
  });

  it('stopping ends each answer still going after the drain with its protocol’s error, not a cut connection', async () => {
    const live = await start({ drainMs: 200 }, { script: () => ({ hang: true }) });
    const answers = [
      ['/v1/chat/completions', true],
      ['/api/chat', true],
      ['/v1/chat/completions', false],
    ].map(([path, stream]) =>
      send(path as string, {
        body: Buffer.from(
          JSON.stringify({
            model: 'lfm2-350m',
            messages: [{ role: 'user', content: 'Hi' }],
            stream,
          }),
        ),
      }),
    );
    await expect.poll(() => live.stats().engines[0]?.active).toBe(3);
    const stopping = live.close();
    relay = undefined;
    const [openAi, ollama, whole] = await Promise.all(answers);
    await stopping;
    expect(openAi.status).toBe(200);
    expect(openAi.text).toContain('data: {"error":{"message":"The relay stopped (relay stopping)');
    expect(ollama.text.trim().split('\n').at(-1)).toMatch(/^\{"error":"The relay stopped/);
    expect(whole.status).toBe(503);
    expect(JSON.parse(whole.text).error.message).toMatch(/^The relay stopped/);
  });
});
