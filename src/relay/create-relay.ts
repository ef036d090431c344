import {
  createServer,
  maxHeaderSize,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { resolve } from 'node:path';
import { WebSocketServer } from 'ws';
import { defaultMaxBlobBytes, defaultMaxBodyBytes, errorResponse } from '../api/wire.js';
import {
  engineProtocol,
  engineQueryFlag,
  engineSecretProtocolPrefix,
  engineSocketPath,
  isApiPath,
  pairingFragmentName,
  relaySessionPath,
} from '../bridge/wire.js';
import type { HeadlessState, RelayHealth, RelaySession } from '../bridge/wire.js';
import { LmtabError } from '../errors/index.js';
import { answerClientError } from './answer-client-error.js';
import {
  checkClientKey,
  presentedKey,
  sameSecret,
  viaProxy,
  type ClientKeys,
} from './client-auth.js';
import { decideCors, preflightHeaders } from './cors-policy.js';
import { createEnginePool, type EnginePoolStats } from './engine-pool.js';
import { attachEngineSocket, type EngineSocket } from './engine-socket.js';
import { forwardRequest, sendResponse, type RelayLogEntry } from './forward-request.js';
import { createPulledBodies } from './pulled-bodies.js';
import { hostName, isLoopbackName, isRelayHost } from './host-check.js';
import { lanAddresses } from './lan-addresses.js';
import { newSecret } from './relay-secret.js';
import {
  chooseRealtimeProtocol,
  offeredProtocols,
  realtimeKeyHeaders,
  realtimePath,
  serveRealtime,
} from './realtime-socket.js';
import {
  defaultDrainMs,
  defaultHeartbeatMs,
  defaultRelayHost,
  defaultRelayPort,
} from './relay-defaults.js';
import { isolationHeaders, serveStatic } from './static-files.js';

/** Options of {@link createRelay}. */
export interface RelayOptions {
  /** Folder of the built app (`dist/`). */
  appDir: string;
  /** Interface to listen on; default {@link defaultRelayHost} (use `0.0.0.0` for the LAN). */
  host?: string;
  /** Port; default {@link defaultRelayPort}; 0 picks a free one. */
  port?: number;
  /** lmtab's version, reported by `/health`. */
  version: string;
  /** Requests that may wait for a free engine slot before 503 `engine_busy`; default {@link defaultQueueLimit}. */
  queueLimit?: number;
  /**
   * Page origins allowed to call the API (`*` for any: every site the user visits may then use the
   * engine); default none: same origin only. Never opens the engine socket.
   */
  corsOrigins?: readonly string[];
  /** Largest request body in bytes before 413; default {@link defaultMaxBodyBytes}. */
  maxBodyBytes?: number;
  /** Largest model file uploaded to `/api/blobs/...` (Ollama's `create`); default {@link defaultMaxBlobBytes}. */
  maxBlobBytes?: number;
  /**
   * Starts an engine when a request finds none connected (the headless launcher); it gets the
   * app URL that makes a page connect to this relay, with the engine secret in its fragment. Without it such requests get 503 `no_engine`.
   */
  startEngine?: (engineUrl: string) => Promise<void>;
  /** Milliseconds requests wait for a started engine to connect; default {@link defaultEngineWaitMs}. */
  engineWaitMs?: number;
  /** Milliseconds between pings to engine tabs; default {@link defaultHeartbeatMs}. */
  heartbeatMs?: number;
  /**
   * The secret engine tabs offer to join (see `loadOrCreateSecret`); default a random one made now.
   * Pages get it only from the links the relay prints ({@link Relay.appUrl}, {@link Relay.pairingUrl}).
   */
  engineSecret?: string;
  /** Names besides loopback, the bound address and LAN addresses that the `Host` may be. */
  allowedHosts?: readonly string[];
  /** API keys `/v1` and `/api` require; default none (open). */
  clientKeys?: ClientKeys;
  /**
   * Milliseconds an engine may send nothing for a request (no head, no body piece) before the
   * request ends with `engine_timeout` and its slot is freed; counted once the request body is
   * sent. Default {@link defaultEngineTimeoutMs}.
   */
  engineTimeoutMs?: number;
  /**
   * Milliseconds a stopping relay lets answers in progress finish, engines still connected, before
   * it ends the rest with their protocol's error. Default {@link defaultDrainMs}.
   */
  drainMs?: number;
  /** The headless engine's state, for `/health`, when the relay launches one. */
  headlessState?: () => { state: HeadlessState; detail?: string };
  /** Told about each API request once it is over. */
  onLog?: (entry: RelayLogEntry) => void;
  /** Told when an engine tab joins or leaves. */
  onEngine?: (event: EngineEvent) => void;
}

/** An engine tab joined (with its slots and version) or left; `engines` counts those connected. */
export interface EngineEvent {
  type: 'connected' | 'disconnected';
  engines: number;
  capacity?: number;
  version?: string;
}

/** A running relay. */
export interface Relay {
  /** The address it listens on, e.g. `http://127.0.0.1:1234`. */
  url: string;
  /** The app URL that makes a page serve as this relay's engine (`/?relay=connect`). */
  engineUrl: string;
  /**
   * {@link engineUrl} with the engine secret in its fragment (`#pair=...`): the page joins as an
   * engine at once (headless engines, tabs on other devices). Keep it private.
   */
  pairingUrl(base?: string): string;
  /**
   * The app's address with the engine secret in its fragment (`/#pair=...`), for the person who
   * started the relay: the page keeps the secret, joins when they click Start Server, and reads
   * the API key from `/lmtab/session`. Keep it private.
   */
  appUrl(base?: string): string;
  server: Server;
  /** Engines, their busy slots, and the queue. */
  stats(): EnginePoolStats;
  close(): Promise<void>;
}

/** Slots the relay believes one tab has at most, whatever it announces. */
const maxEngineSlots = 64;

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
  const appDir = resolve(options.appDir);
  const host = options.host ?? defaultRelayHost;
  const corsOrigins = options.corsOrigins ?? [];
  const maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes;
  const maxBlobBytes = options.maxBlobBytes ?? defaultMaxBlobBytes;
  const engineSecret = options.engineSecret ?? newSecret();
  // Large request bodies, fetched by the engine tabs (the WebSocket carries the small ones).
  const bodies = createPulledBodies(engineSecret);
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

  const health = (): RelayHealth => {
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
  };

  /** Why a request's `Host` is refused (DNS rebinding), or undefined when it names this relay. */
  const hostRefusal = (request: IncomingMessage): LmtabError | undefined => {
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
  };

  /**
   * The engine secret and API key, for the page this relay serves, once it proves it holds the
   * secret (`Authorization: Bearer SECRET`, from the link the relay printed): headers such as
   * Sec-Fetch-Site prove nothing, since any local program can send them, and the route must not
   * give away more than `LMTAB_HOME/relay-secret` (mode 0600) does. Only same-origin requests from
   * a loopback address by a loopback name, and never with CORS headers.
   */
  const answerSession = (request: IncomingMessage, response: ServerResponse) => {
    const origin = request.headers.origin;
    const sameOrigin = origin === undefined || origin === `http://${request.headers.host}`;
    const local =
      isLoopbackName(request.socket.remoteAddress ?? '') &&
      isLoopbackName(hostName(request.headers.host ?? '')) &&
      !viaProxy(request.headers);
    const headers = { ...isolationHeaders, 'Cache-Control': 'no-store' };
    const refuse = (status: number, message: string) => {
      response.writeHead(status, { ...headers, 'Content-Type': 'text/plain' });
      response.end(`${message}\n`);
    };
    if (request.method !== 'GET' || !sameOrigin || !local) {
      return refuse(
        403,
        'The relay answers its session only to the page it serves, opened on this machine ' +
          '(http://localhost or 127.0.0.1). Other tabs join with the pairing link `lmtab serve` prints.',
      );
    }
    const presented = presentedKey(request.headers);
    if (presented === undefined || !sameSecret(presented, engineSecret)) {
      return refuse(
        401,
        presented === undefined
          ? 'The relay answers its session only to a page that holds its engine secret: open the ' +
              'link `lmtab serve` printed (http://127.0.0.1:PORT/#pair=SECRET), or read the secret ' +
              'from LMTAB_HOME/relay-secret and send `Authorization: Bearer SECRET`.'
          : 'Wrong engine secret: it is not this relay’s (it changes when LMTAB_HOME/relay-secret ' +
              'is deleted). Open the link `lmtab serve` prints again.',
      );
    }
    const session: RelaySession = {
      engineSecret,
      ...(clientKeys.keys[0] === undefined ? {} : { apiKey: clientKeys.keys[0] }),
    };
    response.writeHead(200, { ...headers, 'Content-Type': 'application/json' });
    response.end(JSON.stringify(session));
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const { pathname } = new URL(request.url ?? '/', 'http://relay');
    const api = isApiPath(pathname);
    const wrongHost = hostRefusal(request);
    if (wrongHost) {
      if (api) {
        return sendResponse(
          errorResponse(pathname, wrongHost),
          response,
          isolationHeaders,
          request,
        );
      }
      response.writeHead(403, { ...isolationHeaders, 'Content-Type': 'text/plain' });
      return void response.end(`${wrongHost.message}\n`);
    }
    if (pathname === relaySessionPath) return answerSession(request, response);
    if (bodies.serve(request, response)) return;
    if (api || pathname === '/health') {
      const cors = decideCors(request.headers, corsOrigins);
      if (cors.kind === 'refused') {
        const refusal = new LmtabError(
          'origin_not_allowed',
          `Requests from pages at ${cors.origin} are not allowed: expected the relay's own ` +
            `origin${corsOrigins.length > 0 ? ` or one of ${corsOrigins.join(', ')}` : ''}. ` +
            `Start the relay with --cors-origin ${cors.origin} to allow them.`,
        );
        return sendResponse(errorResponse(pathname, refusal), response, isolationHeaders, request);
      }
      const headers = { ...isolationHeaders, ...(cors.kind === 'allowed' ? cors.headers : {}) };
      if (request.method === 'OPTIONS') {
        response.writeHead(204, { ...headers, ...preflightHeaders(request.headers) });
        return void response.end();
      }
      if (!api) {
        response.writeHead(200, { ...headers, 'Content-Type': 'application/json' });
        return void response.end(JSON.stringify(health()));
      }
      const unauthorized = checkClientKey(
        request.headers,
        request.socket.remoteAddress,
        clientKeys,
      );
      if (unauthorized) {
        return sendResponse(
          errorResponse(pathname, unauthorized),
          response,
          { ...headers, 'WWW-Authenticate': 'Bearer' },
          request,
        );
      }
      requestCount += 1;
      // Model files stream to the tab's store through /api/blobs; JSON bodies stay small.
      const blob = pathname.startsWith('/api/blobs/');
      return forwardRequest(request, response, {
        pool,
        bodies,
        maxBodyBytes: blob ? maxBlobBytes : maxBodyBytes,
        limitFlag: blob ? '--max-blob' : '--max-body',
        id: requestCount.toString(36),
        headers,
        engineTimeoutMs: options.engineTimeoutMs,
        onLog: options.onLog,
      });
    }
    if (await serveStatic(appDir, request, response)) return;
    response.writeHead(404, { ...isolationHeaders, 'Content-Type': 'text/plain' });
    // Never echo unbounded input.
    response.end(`Not found: ${pathname.length > 200 ? `${pathname.slice(0, 200)}…` : pathname}\n`);
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
    handle(request, response).catch((error: unknown) => {
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

  // Engine tabs: each socket joins the pool once it says how many requests it takes at once.
  const sockets = new WebSocketServer({
    noServer: true,
    maxPayload: 16 * 1024 * 1024,
    handleProtocols: (protocols) => (protocols.has(engineProtocol) ? engineProtocol : false),
  });
  const alive = new WeakMap<object, boolean>();
  const engines = new Set<EngineSocket>();
  server.on('upgrade', (request, socket, head) => {
    const { pathname } = new URL(request.url ?? '/', 'http://relay');
    const refuse = (status: string, reason = '') => {
      const body = Buffer.from(reason === '' ? '' : `${reason}\n`);
      socket.end(
        `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n` +
          `Content-Length: ${body.byteLength}\r\n\r\n${body.toString()}`,
      );
    };
    if (pathname !== engineSocketPath && pathname !== realtimePath) {
      return refuse('404 Not Found');
    }
    const wrongHost = hostRefusal(request);
    if (wrongHost) return refuse('403 Forbidden', wrongHost.message);
    if (pathname === realtimePath) return upgradeRealtime(request, socket, head, refuse);
    // An engine reads every request routed to it: it joins only with the relay's secret, whatever
    // its Origin (--cors-origin opens the API to pages, never this socket).
    const offered = offeredProtocols(request.headers);
    const secret = offered
      .find((p) => p.startsWith(engineSecretProtocolPrefix))
      ?.slice(engineSecretProtocolPrefix.length);
    if (secret === undefined || !offered.includes(engineProtocol)) {
      return refuse(
        '401 Unauthorized',
        `An engine joins this relay only with its secret: offer the subprotocols ${engineProtocol} ` +
          `and ${engineSecretProtocolPrefix}SECRET. The page the relay serves on this machine reads ` +
          'it by itself; other tabs open the pairing link `lmtab serve` prints.',
      );
    }
    if (!sameSecret(secret, engineSecret)) {
      return refuse(
        '401 Unauthorized',
        'Wrong engine secret: it is not this relay’s (it changes when LMTAB_HOME/relay-secret is ' +
          'deleted). Open the pairing link `lmtab serve` prints again.',
      );
    }
    sockets.handleUpgrade(request, socket, head, (ws) => {
      alive.set(ws, true);
      ws.on('pong', () => alive.set(ws, true));
      let joined = false;
      const engine: EngineSocket = attachEngineSocket(ws, {
        onHello: (hello) => {
          const capacity = Math.min(hello.capacity, maxEngineSlots);
          pool.add(engine, capacity);
          joined = true;
          const engines = pool.stats().engines.length;
          options.onEngine?.({ type: 'connected', engines, capacity, version: hello.version });
        },
        onSlots: (capacity) => pool.resize(engine, Math.min(capacity, maxEngineSlots)),
        onClose: () => {
          pool.remove(engine);
          engines.delete(engine);
          if (!joined) return;
          options.onEngine?.({ type: 'disconnected', engines: pool.stats().engines.length });
        },
      });
      engines.add(engine);
    });
  });
  // Realtime clients: a WebSocket is not bound by CORS, so a page's Origin is checked here, and
  // the key as on any API request (a browser offers it as a subprotocol).
  const realtimeSockets = new WebSocketServer({
    noServer: true,
    maxPayload: maxBodyBytes,
    handleProtocols: chooseRealtimeProtocol,
  });
  function upgradeRealtime(
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    refuse: (status: string, reason?: string) => void,
  ): void {
    const cors = decideCors(request.headers, corsOrigins);
    if (cors.kind === 'refused') {
      return refuse(
        '403 Forbidden',
        `Realtime sessions from pages at ${cors.origin} are not allowed: expected the relay's own ` +
          `origin${corsOrigins.length > 0 ? ` or one of ${corsOrigins.join(', ')}` : ''} ` +
          `(lmtab serve --cors-origin ${cors.origin} allows them).`,
      );
    }
    const unauthorized = checkClientKey(
      realtimeKeyHeaders(request.headers),
      request.socket.remoteAddress,
      clientKeys,
    );
    if (unauthorized) return refuse('401 Unauthorized', unauthorized.message);
    requestCount += 1;
    const id = requestCount.toString(36);
    realtimeSockets.handleUpgrade(request, socket, head, (ws) => {
      alive.set(ws, true);
      ws.on('pong', () => alive.set(ws, true));
      void serveRealtime(ws, { pool, id, url: request.url ?? realtimePath, onLog: options.onLog });
    });
  }

  const heartbeat = setInterval(() => {
    for (const ws of [...sockets.clients, ...realtimeSockets.clients]) {
      if (!alive.get(ws)) ws.terminate();
      else {
        alive.set(ws, false);
        ws.ping();
      }
    }
  }, options.heartbeatMs ?? defaultHeartbeatMs);
  heartbeat.unref();

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
    clearInterval(heartbeat);
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
    const left = [...sockets.clients, ...realtimeSockets.clients];
    for (const engine of engines) engine.close(1001, 'relay stopping');
    while (
      Date.now() < grace &&
      (left.some((ws) => ws.readyState !== ws.CLOSED) || answers.size > 0)
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const ws of left) ws.terminate();
    sockets.close();
    realtimeSockets.close();
    server.closeAllConnections();
    await closed;
  }
}

/** Milliseconds a stopping relay then gives the answers left to end with their error. */
const closeGraceMs = 2000;
