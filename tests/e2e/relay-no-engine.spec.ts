import { expect, test } from '@playwright/test';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Ollama } from 'ollama';
import { APIError } from 'openai';
import WebSocket from 'ws';
import { hello, openAiClient } from './support/relay-clients.js';
import { relayPorts, runCli, startRelay, stopCli } from './support/relay.js';

const execFileAsync = promisify(execFile);

test.describe('the relay without an engine', () => {
  test(
    '/health and the app answer without an engine; the API answers 503 no_engine with a hint',
    { tag: '@smoke' },
    async () => {
      const relay = await startRelay(relayPorts.bare);
      try {
        const health = await (await fetch(`${relay.url}/health`)).json();
        expect(health).toMatchObject({
          status: 'ok',
          engines: 0,
          host: '127.0.0.1',
          port: relayPorts.bare,
          lanAddresses: [],
          queue: { waiting: 0, limit: 16 },
        });
        const app = await fetch(`${relay.url}/`);
        expect(app.status).toBe(200);
        expect(app.headers.get('cross-origin-opener-policy')).toBe('same-origin');
        expect(app.headers.get('cross-origin-embedder-policy')).toBe('require-corp');

        const error = await openAiClient(relay)
          .chat.completions.create({ model: 'any', messages: hello })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(APIError);
        const apiError = error as APIError;
        expect(apiError.status).toBe(503);
        expect(apiError.code).toBe('no_engine');
        expect(apiError.message).toContain(`Open http://127.0.0.1:${relayPorts.bare}/`);
        expect(apiError.message).toContain('--headless');
        expect(apiError.headers?.get('retry-after')).toBe('1');

        const native = await fetch(`${relay.url}/api/tags`);
        expect(native.status).toBe(503);
        expect((await native.json()).error).toContain('Start Server');
        await expect(new Ollama({ host: relay.url }).list()).rejects.toThrow(/No engine tab/);
      } finally {
        await relay.close();
      }
    },
  );

  test('CORS: listed origins get CORS headers and preflights, other pages are refused; bodies over --max-body get 413', async () => {
    const relay = await startRelay(relayPorts.cors, {
      corsOrigins: ['http://app.example'],
      maxBodyBytes: 1024,
    });
    try {
      const preflight = await fetch(`${relay.url}/v1/chat/completions`, {
        method: 'OPTIONS',
        headers: {
          Origin: 'http://app.example',
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization, content-type',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('http://app.example');
      expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
      expect(preflight.headers.get('access-control-allow-headers')).toBe(
        'authorization, content-type',
      );

      const allowed = await fetch(`${relay.url}/api/version`, {
        headers: { Origin: 'http://app.example' },
      });
      expect(allowed.headers.get('access-control-allow-origin')).toBe('http://app.example');
      expect(allowed.headers.get('vary')).toBe('Origin');

      const refused = await fetch(`${relay.url}/v1/models`, {
        headers: { Origin: 'http://evil.example' },
      });
      expect(refused.status).toBe(403);
      const refusal = await refused.json();
      expect(refusal.error.code).toBe('origin_not_allowed');
      expect(refusal.error.message).toContain('--cors-origin http://evil.example');
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      const refusedNative = await fetch(`${relay.url}/api/tags`, {
        headers: { Origin: 'http://evil.example' },
      });
      expect(refusedNative.status).toBe(403);
      expect(typeof (await refusedNative.json()).error).toBe('string');

      // Another site's page may not become an engine and read what clients send: a listed
      // origin opens the API, never the engine socket, which needs the relay's secret.
      const socketStatus = await new Promise<number>((resolve) => {
        const socket = new WebSocket(`ws://127.0.0.1:${relayPorts.cors}/lmtab/engine`, {
          origin: 'http://evil.example',
        });
        socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
        socket.on('open', () => {
          socket.close();
          resolve(101);
        });
      });
      expect(socketStatus).toBe(401);

      const big = await fetch(`${relay.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          model: 'x',
          messages: [{ role: 'user', content: 'x'.repeat(2000) }],
        }),
      });
      expect(big.status).toBe(413);
      expect((await big.json()).error.code).toBe('body_too_large');
    } finally {
      await relay.close();
    }
  });

  test('--host 0.0.0.0 is reached from another loopback address (curl --interface 127.0.0.2); the default binding refuses it', async () => {
    const port = relayPorts.lan;
    const curl = (address: string) =>
      execFileAsync('curl', [
        '-sS',
        '--max-time',
        '5',
        '--interface',
        '127.0.0.2',
        `http://${address}:${port}/health`,
      ]);
    const open = await runCli(['serve', '--host', '0.0.0.0', '--port', String(port), '--quiet']);
    try {
      expect(open.output()).toContain(`http://localhost:${port}`);
      const { stdout } = await curl('127.0.0.2');
      expect(JSON.parse(stdout)).toMatchObject({ status: 'ok', host: '0.0.0.0', port });
    } finally {
      await stopCli(open.child);
    }
    const local = await runCli(['serve', '--port', String(port), '--quiet']);
    try {
      const refused = (await curl('127.0.0.2').catch((e: unknown) => e)) as { code?: number };
      // curl's exit code 7: it could not connect.
      expect(refused.code).toBe(7);
      const { stdout } = await curl('127.0.0.1');
      expect(JSON.parse(stdout)).toMatchObject({ host: '127.0.0.1', lanAddresses: [] });
    } finally {
      await stopCli(local.child);
    }
  });
});
