import { afterEach, expect, it } from 'vitest';
import WebSocket from 'ws';
import { connectRelay, type RelayConnection } from '../../bridge/index.js';
import { createRelay, type Relay } from '../create-relay.js';

// The tab side of the bridge (connectRelay, the code an engine tab runs) joining the real relay.
const engineSecret = 'b'.repeat(64);
let relay: Relay | undefined;
let connection: RelayConnection | undefined;

afterEach(async () => {
  connection?.close();
  await relay?.close();
  relay = connection = undefined;
});

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 3000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within 3 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

it('joins at once, before its engine can tell its slots, and announces them when it can', async () => {
  (globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
  relay = await createRelay({ appDir: '/nonexistent', port: 0, version: 'test', engineSecret });
  // A page the service worker does not control yet asks its slots over HTTP, of the relay itself,
  // which has no engine until this tab joins: the question must not hold the join.
  let tell!: (slots: number) => void;
  const slots = new Promise<number>((resolve) => (tell = resolve));
  connection = connectRelay({
    url: `${relay.url.replace(/^http/, 'ws')}/lmtab/engine`,
    connect: () => undefined,
    secret: () => Promise.resolve(engineSecret),
    origin: 'http://lmtab.test',
    fetch: () => Promise.reject(new Error('no request is sent in this test')),
    slots: () => slots,
    retryMs: 100,
  });
  await until(() => relay!.stats().engines.length === 1, 'the tab joined');
  expect(connection.state).toBe('connected');
  expect(relay.stats().engines[0]!.capacity).toBe(4);
  tell(2);
  await until(() => relay!.stats().engines[0]?.capacity === 2, 'the slots were announced');
});
