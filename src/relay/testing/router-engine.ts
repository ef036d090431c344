import WebSocket from 'ws';
import { routerHarness, type RouterHarness } from '../../api/testing/router-harness.js';
import type { RouterHarnessOptions } from '../../api/testing/router-harness.js';
import { connectRelay, type RelayConnection } from '../../bridge/index.js';
import type { Relay } from '../create-relay.js';

/** The real API router (engine double, memory store) serving a relay over the real bridge. */
export interface RouterEngine extends RouterHarness {
  connection: RelayConnection;
  close(): void;
}

/**
 * Connects the tab side of the bridge (`connectRelay`, the code an engine tab runs) to `relay`
 * from Node, answering with the real router over an engine double: the relay, the frames and the
 * router are all the real ones, only the model is not. Resolves once the relay counts it.
 */
export async function connectRouterEngine(
  relay: Relay,
  secret: string,
  options: RouterHarnessOptions = {},
): Promise<RouterEngine> {
  // connectRelay speaks the browser's WebSocket; ws implements the same interface in Node.
  (globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
  const harness = routerHarness(options);
  const before = relay.stats().engines.length;
  const connection = connectRelay({
    url: `${relay.url.replace(/^http/, 'ws')}/lmtab/engine`,
    connect: () => undefined,
    secret: () => Promise.resolve(secret),
    origin: 'http://lmtab.test',
    fetch: (input, init) =>
      harness.router.handle(input instanceof Request ? input : new Request(input, init), {
        signal: init?.signal ?? undefined,
      }),
    retryMs: 100,
  });
  const deadline = Date.now() + 5000;
  while (relay.stats().engines.length <= before) {
    if (Date.now() > deadline) throw new Error('The router engine did not join the relay in 5 s.');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { ...harness, connection, close: () => connection.close() };
}
