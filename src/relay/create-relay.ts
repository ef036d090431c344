import { createServer, maxHeaderSize, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { defaultMaxBlobBytes, defaultMaxBodyBytes } from '../api/wire.js';
import { engineQueryFlag, pairingFragmentName } from '../bridge/wire.js';
import { LmtabError } from '../errors/index.js';
import { answerClientError } from './front/answer-client-error.js';
import type { ClientKeys } from './trust/client-auth.js';
import { createEnginePool } from './exchange/engine-pool.js';
import type { EngineSocket } from './exchange/engine-socket.js';
import { handleRequest } from './front/handle-request.js';
import { hostName, isRelayHost } from './trust/host-check.js';
import { lanAddresses } from './trust/lan-addresses.js';
import type { RelayContext } from './front/relay-context.js';
import { defaultDrainMs, defaultRelayHost, defaultRelayPort } from './relay-defaults.js';
import type { Relay, RelayOptions } from './relay-options.js';
import { createPulledBodies } from './exchange/pulled-bodies.js';
import { newSecret } from './trust/relay-secret.js';
import { createSocketUpgrades } from './front/socket-upgrades.js';
import { isolationHeaders } from './front/static-files.js';
import { RelayMetrics } from './front/relay-metrics.js';

export type { EngineEvent, Relay, RelayOptions } from './relay-options.js';

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** The host a local browser uses to reach a relay listening on `host`. */
function localHost(host: string): string {
  if (host === '0.0.0.0' || host === 'localhost') return '127.0.0.1';
  return host === '::' ? '::1' : host;
}

/**
 * The relay: serves the built app with cross-origin isolation headers, answers `/health`, accepts
 * engine tabs on a WebSocket and forwards `/v1` and `/api` requests to them as frames. It does no
 * model work: it frames, queues, and cancels.
 */
export async function createRelay(options: RelayOptions): Promise<Relay> {
  const host = options.host ?? defaultRelayHost;
  const engineSecret = options.engineSecret ?? newSecret();
  const clientKeys: ClientKeys = options.clientKeys ?? { keys: [], required: 'everyone' };
  const allowedHosts = options.allowedHosts ?? [];
  // Known once listening (the port may be 0); the hint and the engine URL read it late.
  let port = 0;
  const localUrl = () => `http://${urlHost(localHost(host))}:${port}`;
  const engineUrl = () => `${localUrl()}/?${engineQueryFlag.name}=${engineQueryFlag.value}`;
  const pairingUrl = (base = localUrl()) =>
    `${base}/?${engineQueryFlag.name}=${engineQueryFlag.value}#${pairingFragmentName}=${engineSecret}`;
  const appUrl = (base = localUrl()) => `${base}/#${pairingFragmentName}=${engineSecret}`;
  const startEngine = options.startEngine;
  const pool = createEnginePool<EngineSocket>({
    queueLimit: options.queueLimit,
    engineWaitMs: options.engineWaitMs,
    // A launched engine gets the secret in its URL's fragment (never sent over HTTP).
    startEngine: startEngine && (() => startEngine(pairingUrl())),
    get noEngineHint() {
      return (
        `Open ${localUrl()}/ in Chrome or Edge by the link \`lmtab serve\` printed (it carries ` +
        "the relay's engine secret) and click Start Server, or start the relay with --headless."
      );
    },
  });
  let requestCount = 0;
  const metrics = new RelayMetrics();
  const context: RelayContext = {
    options,
    host,
    appDir: resolve(options.appDir),
    corsOrigins: options.corsOrigins ?? [],
    maxBodyBytes: options.maxBodyBytes ?? defaultMaxBodyBytes,
    maxBlobBytes: options.maxBlobBytes ?? defaultMaxBlobBytes,
    engineSecret,
    clientKeys,
    pool,
    bodies: createPulledBodies(engineSecret),
    nextRequestId: () => (++requestCount).toString(36),
    hostRefusal: (request) => hostRefusal(request, host, allowedHosts),
    health: () => {
      const stats = pool.stats();
      return {
        status: 'ok',
        version: options.version,
        engines: stats.engines.length,
        host,
        port,
        lanAddresses: lanAddresses(host),
        slots: stats.engines,
        ...(options.headlessState ? { headless: options.headlessState() } : {}),
        auth: clientKeys.keys.length === 0 ? 'none' : clientKeys.required,
        queue: { waiting: stats.waiting, limit: stats.queueLimit },
      };
    },
    metrics,
    logRequest: (entry) => {
      metrics.record(entry);
      options.onLog?.(entry);
    },
    engineEvent: (event) => {
      metrics.engineEvent(event.type);
      options.onEngine?.(event);
    },
  };

  // The answer each connection is writing, so that a parser error after its request does not
  // write a second one over it.
  const answering = new WeakMap<object, { request: IncomingMessage; response: ServerResponse }>();
  // Every answer in progress, so that stopping waits for their error tails.
  const answers = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    answering.set(request.socket, { request, response });
    answers.add(response);
    response.once('close', () => {
      answers.delete(response);
      if (answering.get(request.socket)?.response === response) answering.delete(request.socket);
    });
    handleRequest(context, request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'Content-Type': 'text/plain' });
      response.end(`Relay error: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  });
  server.on('clientError', (error, socket) =>
    answerClientError(error, socket, {
      headers: isolationHeaders,
      maxHeaderBytes: maxHeaderSize,
      inFlight: answering.get(socket),
    }),
  );
  const upgrades = createSocketUpgrades(context);
  server.on('upgrade', upgrades.upgrade);

  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? defaultRelayPort, host, () => done());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://${urlHost(host)}:${port}`,
    engineUrl: engineUrl(),
    pairingUrl,
    appUrl,
    server,
    stats: () => pool.stats(),
    close: () => stop(),
  };

  /**
   * Stops without leaving a client guessing: no new connections, queued requests get 503, each
   * answer in progress ends with its protocol's error (the engine sockets close first, which ends
   * their exchanges), and only then, or after `closeGraceMs`, are the connections cut.
   */
  async function stop(): Promise<void> {
    upgrades.stopPings();
    const closed = new Promise<void>((done) => server.close(() => done()));
    server.closeIdleConnections();
    pool.close(
      new LmtabError(
        'no_engine',
        'The relay is stopping (restarted or shut down): retry shortly.',
        {
          retryAfter: 1,
        },
      ),
    );
    // New requests are refused now (the listener is closed and the queue fails with no_engine);
    // answers in progress may finish, so that a restart cuts none that would have ended.
    const drain = Date.now() + (options.drainMs ?? defaultDrainMs);
    while (Date.now() < drain && answers.size > 0) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const grace = Date.now() + closeGraceMs;
    const left = upgrades.clients();
    for (const engine of upgrades.engines) engine.close(1001, 'relay stopping');
    while (
      Date.now() < grace &&
      (left.some((ws) => ws.readyState !== ws.CLOSED) || answers.size > 0)
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const ws of left) ws.terminate();
    upgrades.close();
    server.closeAllConnections();
    await closed;
  }
}

/** Why a request's `Host` is refused (DNS rebinding), or undefined when it names this relay. */
function hostRefusal(
  request: IncomingMessage,
  host: string,
  allowedHosts: readonly string[],
): LmtabError | undefined {
  const header = request.headers.host;
  if (isRelayHost(header, { host, lanAddresses: lanAddresses(host), allowedHosts })) return;
  const name = hostName(header ?? '').slice(0, 256);
  return new LmtabError(
    'host_not_allowed',
    `Requests for host "${name}" are refused: this relay answers only its own names ` +
      `(localhost, 127.0.0.1, ${host}${host === '0.0.0.0' || host === '::' ? ' and its LAN addresses' : ''}), ` +
      'so that a web page cannot reach it through DNS rebinding. If you reach it by this name ' +
      `on purpose, start the relay with --allowed-host ${name}.`,
  );
}

/** Milliseconds a stopping relay then gives the answers left to end with their error. */
const closeGraceMs = 2000;
