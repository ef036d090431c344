import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { AuthenticationError } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGateway } from './create-gateway.js';
import type { Gateway } from './create-gateway.js';
import { createKeyStore, generateApiKey } from './key-store.js';
import type { KeyStore } from './key-store.js';
import { testPorts } from '../../../tests/support/test-ports.js';

const gatewayPort = testPorts.gatewayUnit;
const upstreamPort = testPorts.gatewayUpstream;

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let folder: string;
let store: KeyStore;
let key: string;
let revokedKey: string;
let keyId: string;
let upstream: Server;
let gateway: Gateway;
let seen: Seen[] = [];
let closedEarly = 0;
const log: string[] = [];

// Stands in for an app's relay: answers /v1/models and /v1/chat/completions in OpenAI's shapes.
function startUpstream(): Promise<Server> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      seen.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body,
      });
      if (request.url === '/v1/models') {
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(
          JSON.stringify({
            object: 'list',
            data: [{ id: 'tiny', object: 'model', created: 0, owned_by: 'lmtab' }],
          }),
        );
        return;
      }
      if (request.url === '/v1/chat/completions') {
        const parsed = JSON.parse(body) as { stream?: boolean };
        const base = { id: 'chatcmpl-1', created: 0, model: 'tiny' };
        if (parsed.stream !== true) {
          response.writeHead(200, { 'Content-Type': 'application/json' });
          response.end(
            JSON.stringify({
              ...base,
              object: 'chat.completion',
              choices: [
                {
                  index: 0,
                  finish_reason: 'stop',
                  message: { role: 'assistant', content: 'Hello!' },
                },
              ],
            }),
          );
          return;
        }
        response.writeHead(200, { 'Content-Type': 'text/event-stream' });
        const chunk = (content: string) =>
          `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
        response.write(chunk('Hel'));
        setTimeout(() => {
          response.write(chunk('lo!'));
          response.end('data: [DONE]\n\n');
        }, 20);
        return;
      }
      if (request.url === '/v1/slow') {
        response.writeHead(200, { 'Content-Type': 'text/event-stream' });
        response.write('data: {}\n\n');
        response.on('close', () => (closedEarly += 1));
        return;
      }
      response.writeHead(404, { 'Content-Type': 'application/json' });
      response.end('{"error":{"message":"nope"}}');
    });
  });
  return new Promise((done) => server.listen(upstreamPort, '127.0.0.1', () => done(server)));
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'lmtab-gateway-'));
  store = createKeyStore({ file: join(folder, 'keys.json') });
  const created = await store.create({ name: 'test' });
  key = created.key;
  keyId = created.info.id;
  const revoked = await store.create({ name: 'old' });
  revokedKey = revoked.key;
  await store.revoke(revoked.info.id);
  upstream = await startUpstream();
  const upstreamUrl = `http://127.0.0.1:${upstreamPort}`;
  gateway = await createGateway({
    port: gatewayPort,
    routes: [
      { org: 'acme', app: 'chat', auth: 'private', upstream: upstreamUrl },
      { org: 'acme', app: 'open', auth: 'public', upstream: upstreamUrl },
      {
        org: 'acme',
        app: 'down',
        auth: 'public',
        upstream: `http://127.0.0.1:${testPorts.gatewayNoUpstream}`,
      },
    ],
    keys: () => store.records(),
    log: (line) => log.push(line),
  });
});

afterAll(async () => {
  await gateway.close();
  await new Promise((done) => upstream.close(done));
  await rm(folder, { recursive: true, force: true });
});

beforeEach(() => {
  seen = [];
});

function client(app: string, authorization?: string): OpenAI {
  return new OpenAI({
    baseURL: `${gateway.url}/acme/${app}/v1`,
    apiKey: 'unused',
    maxRetries: 0,
    defaultHeaders:
      authorization === undefined ? { Authorization: null } : { Authorization: authorization },
  });
}

describe('the gateway with the openai client', () => {
  it('serves a private app to Authorization: Key <API_KEY>, without passing the key on', async () => {
    const openai = client('chat', `Key ${key}`);
    const models = await openai.models.list();
    expect(models.data.map((model) => model.id)).toEqual(['tiny']);
    const completion = await openai.chat.completions.create({
      model: 'tiny',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(completion.choices[0]?.message.content).toBe('Hello!');
    const stream = await openai.chat.completions.create({
      model: 'tiny',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hello!');
    expect(seen.map((request) => request.url)).toEqual([
      '/v1/models',
      '/v1/chat/completions',
      '/v1/chat/completions',
    ]);
    for (const request of seen) {
      expect(request.headers.authorization).toBeUndefined();
      expect(request.headers['x-forwarded-prefix']).toBe('/acme/chat');
    }
    expect(JSON.parse(seen[1]?.body ?? '')).toMatchObject({ model: 'tiny' });
  });

  it.each([
    ['no key', undefined, 'no Authorization header'],
    ['a wrong key', () => `Key ${generateApiKey()}`, 'a key that is not valid'],
    ['a revoked key', () => `Key ${revokedKey}`, 'a key that has been revoked'],
    [
      'Bearer',
      () => `Bearer ${key}`,
      '"Authorization: Bearer ..." (lmtab keys go after Key, not Bearer)',
    ],
  ])('answers %s with 401 and the expected form', async (_name, header, got) => {
    const authorization = typeof header === 'function' ? header() : header;
    const error = await client('chat', authorization)
      .models.list()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthenticationError);
    const failure = error as AuthenticationError;
    expect(failure.status).toBe(401);
    expect(failure.error).toEqual({
      message: `This app is private: expected the header "Authorization: Key <API_KEY>" with an lmtab key, got ${got}.`,
      type: 'authentication_error',
      param: null,
      code: 'unauthorized',
    });
    expect(failure.headers.get('www-authenticate')).toBe('Key realm="lmtab"');
    expect(seen).toEqual([]);
  });

  it('serves a public app with no key', async () => {
    const models = await client('open').models.list();
    expect(models.data).toHaveLength(1);
  });
});

describe('the gateway over plain HTTP', () => {
  it('answers native /api paths with native errors', async () => {
    const response = await fetch(`${gateway.url}/acme/chat/api/tags`);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: expect.stringMatching(/Authorization: Key <API_KEY>/),
    });
  });

  it('answers unknown apps with 404 and an unreachable app with 503', async () => {
    const missing = await fetch(`${gateway.url}/acme/nope/v1/models`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('not_found');
    const down = await fetch(`${gateway.url}/acme/down/v1/models`);
    expect(down.status).toBe(503);
    expect(((await down.json()) as { error: { message: string } }).error.message).toBe(
      `The app /acme/down did not answer: expected its server at http://127.0.0.1:${testPorts.gatewayNoUpstream} to accept the request, got ECONNREFUSED.`,
    );
  });

  it('answers CORS preflights without a key and health checks', async () => {
    const preflight = await fetch(`${gateway.url}/acme/chat/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://example.com',
        'Access-Control-Request-Headers': 'authorization,content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toBe(
      'authorization,content-type',
    );
    expect(await (await fetch(`${gateway.url}/health`)).json()).toEqual({ status: 'ok', apps: 3 });
  });

  it('cancels the upstream request when the client goes away', async () => {
    const controller = new AbortController();
    const response = await fetch(`${gateway.url}/acme/open/v1/slow`, { signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    const before = closedEarly;
    controller.abort();
    await expect.poll(() => closedEarly).toBe(before + 1);
  });

  it('logs paths, statuses and key ids, never a key', async () => {
    await fetch(`${gateway.url}/acme/chat/v1/models?key=${key}`, {
      headers: { Authorization: `Key ${key}` },
    });
    await fetch(`${gateway.url}/acme/chat/v1/models`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    await expect.poll(() => log.length).toBeGreaterThan(1);
    const text = log.join('\n');
    expect(text).toMatch(new RegExp(`GET /acme/chat/v1/models 200 \\d+ms key=${keyId}`));
    expect(text).toMatch(/GET \/acme\/chat\/v1\/models 401 \d+ms$/m);
    expect(text).not.toContain(key);
    expect(text).not.toContain(revokedKey);
    expect(text).not.toContain(key.slice(6, 16));
  });
});

describe('the gateway: key scopes and CORS', () => {
  const call = (path: string, method: string, headers: Record<string, string> = {}) =>
    fetch(`${gateway.url}${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', ...headers },
      body: method === 'GET' ? undefined : '{"model":"tiny"}',
    });

  it('lets api keys infer and read, and refuses them model changes with 403 naming the scope', async () => {
    const admin = await store.create({ name: 'ops', scope: 'admin' });
    for (const [path, method] of [
      ['/api/pull', 'POST'],
      ['/api/create', 'POST'],
      ['/api/copy', 'POST'],
      ['/api/delete', 'DELETE'],
      ['/api/blobs/sha256:00', 'POST'],
    ]) {
      const refused = await call(`/acme/chat${path}`, method, { Authorization: `Key ${key}` });
      expect(refused.status, path).toBe(403);
      const { error } = (await refused.json()) as { error: string };
      expect(error).toContain(`Key ${keyId} has scope "api"`);
      expect(error).toContain('scope "admin"');
      expect(refused.headers.get('www-authenticate')).toBeNull();
    }
    expect(seen).toEqual([]);
    await call('/acme/chat/api/tags', 'GET', { Authorization: `Key ${key}` });
    await call('/acme/chat/api/pull', 'POST', { Authorization: `Key ${admin.key}` });
    expect(seen.map((s) => s.url)).toEqual(['/api/tags', '/api/pull']);
    // A public app's models change only with an admin key too.
    const anonymous = await call('/acme/open/api/delete', 'DELETE');
    expect(anonymous.status).toBe(401);
    const apiKey = await call('/acme/open/api/delete', 'DELETE', { Authorization: `Key ${key}` });
    expect(apiKey.status).toBe(403);
    await call('/acme/open/api/delete', 'DELETE', { Authorization: `Key ${admin.key}` });
    expect(seen.map((s) => s.url)).toEqual(['/api/tags', '/api/pull', '/api/delete']);
  });

  it('answers CORS itself and forwards neither the page’s Origin nor credentials', async () => {
    const response = await call('/acme/chat/v1/models', 'GET', {
      Authorization: `Key ${key}`,
      Origin: 'https://app.example',
      Cookie: 'session=1',
      'x-api-key': 'other',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const [forwarded] = seen;
    for (const name of ['origin', 'cookie', 'x-api-key', 'authorization']) {
      expect(forwarded.headers[name], name).toBeUndefined();
    }
  });
});
