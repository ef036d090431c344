import { expect, test } from '@playwright/test';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import OpenAI, { AuthenticationError } from 'openai';
import { startFakeHub } from '../support/fake-hub.js';
import type { FakeHub } from '../support/fake-hub.js';
import { ensureFixtures } from '../support/lfm2-fixtures.js';
import { fixtureDir } from './support/paths.js';
import { testPorts } from '../support/test-ports.js';

// Ports of this spec: the gateway, the fake hub, the app's own port and its relay.
const ports = {
  gateway: testPorts.cloudGateway,
  hub: testPorts.cloudHub,
  replica: testPorts.cloudReplica,
  relay: testPorts.cloudRelay,
} as const;
const model = 'hf.co/LiquidAI/LFM2-350M-GGUF:Q4_K_M';
const base = `http://127.0.0.1:${ports.gateway}/acme/chat`;

let hub: FakeHub;
let folder: string;
let child: ChildProcess;
let output = '';
let env: NodeJS.ProcessEnv;

async function lmtab(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['bin/lmtab.js', ...args], {
    env,
  });
  return stdout;
}

async function createKey(scope = 'api'): Promise<{ id: string; key: string }> {
  return JSON.parse(await lmtab('keys', 'create', '--scope', scope, '--json')) as {
    id: string;
    key: string;
  };
}

function client(authorization: string | null): OpenAI {
  return new OpenAI({
    baseURL: `${base}/v1`,
    apiKey: 'unused',
    maxRetries: 0,
    defaultHeaders: { Authorization: authorization },
  });
}

test.describe('lmtab cloud run', () => {
  test.describe.configure({ mode: 'serial', timeout: 300_000 });

  test.beforeAll(async () => {
    test.setTimeout(300_000);
    const paths = await ensureFixtures(fixtureDir);
    hub = await startFakeHub({
      port: ports.hub,
      repos: [
        {
          id: 'LiquidAI/LFM2-350M-GGUF',
          files: [{ path: 'LFM2-350M-Q4_K_M.gguf', file: paths.lfm2 }],
        },
      ],
    });
    folder = await mkdtemp(join(tmpdir(), 'lmtab-cloud-run-'));
    env = { ...process.env, LMTAB_HOME: join(folder, 'home'), HF_ENDPOINT: hub.url };
    await writeFile(
      join(folder, 'chat.ts'),
      [
        "import { defineApp } from 'lmtab/cloud';",
        '',
        'export const serve = defineApp({',
        `  model: '${model}',`,
        '  contextLength: 1024,',
        '  parallel: 2,',
        "  keepAlive: '5m',",
        '});',
        '',
      ].join('\n'),
    );
    child = spawn(
      process.execPath,
      [
        'bin/lmtab.js',
        'cloud',
        'run',
        `${join(folder, 'chat.ts')}::serve`,
        '--auth',
        'private',
        '--org',
        'acme',
        '--app-name',
        'chat',
        '--port',
        String(ports.gateway),
        '--replica-port',
        String(ports.replica),
        '--relay-port',
        String(ports.relay),
      ],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout?.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    await expect
      .poll(() => (child.exitCode === null ? output : `exited ${child.exitCode}: ${output}`), {
        timeout: 240_000,
        intervals: [500],
      })
      .toContain('Base URL:');
  });

  test.afterAll(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await hub.close();
    await rm(folder, { recursive: true, force: true });
  });

  test('pulls the model from the hub, loads it, and prints its base URL', () => {
    expect(output).toContain(`acme/chat (private) serving ${model}`);
    expect(output).toContain(`Base URL: ${base} (OpenAI: ${base}/v1, Ollama: ${base}/api)`);
    expect(output).toContain('Every request needs the header: Authorization: Key <API_KEY>');
    expect(hub.requestsFor('LiquidAI/LFM2-350M-GGUF/LFM2-350M-Q4_K_M.gguf').length).toBeGreaterThan(
      0,
    );
  });

  test('answers the openai client sending Authorization: Key <API_KEY>', async () => {
    const { key } = await createKey();
    const openai = client(`Key ${key}`);
    expect((await openai.models.list()).data.map((entry) => entry.id)).toEqual([model]);
    const completion = await openai.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Hello' }],
      max_tokens: 6,
    });
    expect(completion.choices[0]?.finish_reason).toMatch(/^(length|stop)$/);
    expect(typeof completion.choices[0]?.message.content).toBe('string');
    const stream = await openai.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Hello' }],
      max_tokens: 6,
      stream: true,
    });
    let chunks = 0;
    for await (const chunk of stream) if (chunk.choices.length > 0) chunks += 1;
    expect(chunks).toBeGreaterThan(0);
    expect(output).not.toContain(key);
  });

  test('refuses no key, a wrong key, Bearer and a revoked key with 401', async () => {
    const { id, key } = await createKey();
    const refusals: [string | null, string][] = [
      [null, 'no Authorization header'],
      ['Key lmtab_not-a-real-key', 'a key that is not valid'],
      [`Bearer ${key}`, '"Authorization: Bearer ..." (lmtab keys go after Key, not Bearer)'],
    ];
    for (const [authorization, got] of refusals) {
      const error = await client(authorization)
        .models.list()
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(AuthenticationError);
      expect((error as AuthenticationError).message).toContain(
        `expected the header "Authorization: Key <API_KEY>" with an lmtab key, got ${got}.`,
      );
    }
    expect((await client(`Key ${key}`).models.list()).data).toHaveLength(1);
    await lmtab('keys', 'revoke', id);
    const revoked = await client(`Key ${key}`)
      .models.list()
      .catch((caught: unknown) => caught);
    expect(revoked).toBeInstanceOf(AuthenticationError);
    expect((revoked as AuthenticationError).message).toContain('got a key that has been revoked.');
    expect(output).not.toContain(key);
  });

  test('a browser page on another origin calls the private app through the gateway with a key', async ({
    page,
  }) => {
    const { key } = await createKey();
    // A page of another site: its own origin (another port), calling the gateway with fetch.
    const site = createServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html' });
      response.end('<!doctype html><title>another site</title>');
    });
    await new Promise<void>((done) => site.listen(0, '127.0.0.1', done));
    try {
      await page.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`);
      const answer = await page.evaluate(
        async ({ url, authorization, name }) => {
          const response = await fetch(url, {
            method: 'POST',
            headers: { Authorization: authorization, 'Content-Type': 'application/json' },
            body: JSON.stringify({
              model: name,
              messages: [{ role: 'user', content: 'Hello' }],
              max_tokens: 4,
            }),
          });
          return { status: response.status, body: await response.text() };
        },
        { url: `${base}/v1/chat/completions`, authorization: `Key ${key}`, name: model },
      );
      expect(answer.status, answer.body).toBe(200);
      expect(JSON.parse(answer.body).choices[0].message.role).toBe('assistant');
      // Without the key the page is refused by the gateway, and can read why.
      const anonymous = await page.evaluate(
        async (url) => (await fetch(url)).status,
        `${base}/v1/models`,
      );
      expect(anonymous).toBe(401);
    } finally {
      await new Promise((done) => site.close(done));
    }
  });

  test('api keys infer and read; pulling, copying and deleting need an admin key (403 naming the scope)', async () => {
    const api = await createKey('api');
    const admin = await createKey('admin');
    const post = (path: string, key: string, body: unknown, method = 'POST') =>
      fetch(`${base}${path}`, {
        method,
        headers: { Authorization: `Key ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const tags = await fetch(`${base}/api/tags`, { headers: { Authorization: `Key ${api.key}` } });
    expect(tags.status).toBe(200);
    for (const [path, body, method] of [
      ['/api/pull', { model }, 'POST'],
      ['/api/copy', { source: model, destination: 'copied' }, 'POST'],
      ['/api/delete', { model }, 'DELETE'],
    ] as const) {
      const refused = await post(path, api.key, body, method);
      expect(refused.status, path).toBe(403);
      expect((await refused.json()).error).toContain('scope "admin"');
    }
    expect(
      (await post('/api/copy', admin.key, { source: model, destination: 'copied' })).status,
    ).toBe(200);
    expect((await post('/api/delete', admin.key, { model: 'copied' }, 'DELETE')).status).toBe(200);
    const names = ((await tags.json()) as { models: { name: string }[] }).models.map((m) => m.name);
    expect(names).toContain(model);
  });
});
