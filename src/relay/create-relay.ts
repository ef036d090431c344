import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { WebSocketServer } from 'ws';
import { errorResponse } from '../api/wire-errors.js';
import { isApiPath } from '../bridge/frames.js';
import type { RelayHealth } from '../bridge/relay-health.js';
import { engineQueryFlag, engineSocketPath } from '../bridge/socket-frames.js';
import { LmtabError } from '../errors/index.js';
import { decideCors, preflightHeaders } from './cors-policy.js';
import { createEnginePool, type EnginePoolStats } from './engine-pool.js';
import { attachEngineSocket, type EngineSocket } from './engine-socket.js';
import { forwardRequest, sendResponse, type RelayLogEntry } from './forward-request.js';
import { lanAddresses } from './lan-addresses.js';
import { isolationHeaders, serveStatic } from './static-files.js';

/** Options of {@link createRelay}. */
export interface RelayOptions {
  /** Folder of the built app (`dist/`). */
  appDir: string;
  /** Interface to listen on; default `127.0.0.1` (use `0.0.0.0` for the LAN). */
  host?: string;
  /** Port; default 1234 (11434 serves Ollama clients); 0 picks a free one. */
  port?: number;
  /** lmtab's version, reported by `/health`. */
  version: string;
  /** Requests that may wait for a free engine slot before 503 `engine_busy`; default 16. */
  queueLimit?: number;
  /** Page origins allowed to call the API (`*` for any); default none: same origin only. */
  corsOrigins?: readonly string[];
  /** Largest request body in bytes before 413; default 32 MiB. */
  maxBodyBytes?: number;
  /** Largest model file uploaded to `/api/blobs/...` (Ollama's `create`); default 64 GiB. */
  maxBlobBytes?: number;
  /**
   * Starts an engine when a request finds none connected (the headless launcher); it gets the
   * app URL that makes a page connect to this relay. Without it such requests get 503 `no_engine`.
   */
  startEngine?: (engineUrl: string) => Promise<void>;
  /** Milliseconds requests wait for a started engine to connect; default 120000. */
  engineWaitMs?: number;
  /** Milliseconds between pings to engine tabs; one unanswered ping drops the tab. Default 15000. */
  heartbeatMs?: number;
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
  server: Server;
  /** Engines, their busy slots, and the queue. */
  stats(): EnginePoolStats;
  close(): Promise<void>;
}

const defaultMaxBodyBytes = 32 * 1024 * 1024;
const defaultMaxBlobBytes = 64 * 1024 ** 3;

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
  const host = options.host ?? '127.0.0.1';
  const corsOrigins = options.corsOrigins ?? [];
  const maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes;
  const maxBlobBytes = options.maxBlobBytes ?? defaultMaxBlobBytes;
  // Known once listening (the port may be 0); the hint and the engine URL read it late.
  let port = 0;
  const localUrl = () => `http://${urlHost(localHost(host))}:${port}`;
  const engineUrl = () => `${localUrl()}/?${engineQueryFlag.name}=${engineQueryFlag.value}`;
  const startEngine = options.startEngine;
  const pool = createEnginePool<EngineSocket>({
    queueLimit: options.queueLimit,
    engineWaitMs: options.engineWaitMs,
    startEngine: startEngine && (() => startEngine(engineUrl())),
    get noEngineHint() {
      return (
        `Open ${localUrl()}/ in Chrome or Edge and click Start Server, ` +
        'or start the relay with --headless.'
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
      queue: { waiting: stats.waiting, limit: stats.queueLimit },
    };
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const { pathname } = new URL(request.url ?? '/', 'http://relay');
    const api = isApiPath(pathname);
    if (api || pathname === '/health') {
      const cors = decideCors(request.headers, corsOrigins);
      if (cors.kind === 'refused') {
        const refusal = new LmtabError(
          'unauthorized',
          `Requests from pages at ${cors.origin} are not allowed: expected the relay's own ` +
            `origin${corsOrigins.length > 0 ? ` or one of ${corsOrigins.join(', ')}` : ''}. ` +
            `Start the relay with --cors-origin ${cors.origin} to allow them.`,
          { status: 403 },
        );
        return sendResponse(errorResponse(pathname, refusal), response, isolationHeaders);
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
      requestCount += 1;
      // Model files stream to the tab's store through /api/blobs; JSON bodies stay small.
      const blob = pathname.startsWith('/api/blobs/');
      return forwardRequest(request, response, {
        pool,
        maxBodyBytes: blob ? maxBlobBytes : maxBodyBytes,
        limitFlag: blob ? '--max-blob' : '--max-body',
        id: requestCount.toString(36),
        headers,
        onLog: options.onLog,
      });
    }
    if (await serveStatic(appDir, request, response)) return;
    response.writeHead(404, { ...isolationHeaders, 'Content-Type': 'text/plain' });
    response.end(`Not found: ${pathname}\n`);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'Content-Type': 'text/plain' });
      response.end(`Relay error: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  });

  // Engine tabs: each socket joins the pool once it says how many requests it takes at once.
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 });
  const alive = new WeakMap<object, boolean>();
  server.on('upgrade', (request, socket, head) => {
    const { pathname } = new URL(request.url ?? '/', 'http://relay');
    const refuse = (status: string) => {
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    if (pathname !== engineSocketPath) return refuse('404 Not Found');
    // Another site's page must not become an engine and read the requests sent to it.
    if (decideCors(request.headers, corsOrigins).kind === 'refused') return refuse('403 Forbidden');
    sockets.handleUpgrade(request, socket, head, (ws) => {
      alive.set(ws, true);
      ws.on('pong', () => alive.set(ws, true));
      let joined = false;
      const engine: EngineSocket = attachEngineSocket(ws, {
        onHello: (hello) => {
          const capacity = Math.min(hello.capacity, 64);
          pool.add(engine, capacity);
          joined = true;
          const engines = pool.stats().engines.length;
          options.onEngine?.({ type: 'connected', engines, capacity, version: hello.version });
        },
        onClose: () => {
          pool.remove(engine);
          if (!joined) return;
          options.onEngine?.({ type: 'disconnected', engines: pool.stats().engines.length });
        },
      });
    });
  });
  const heartbeat = setInterval(() => {
    for (const ws of sockets.clients) {
      if (!alive.get(ws)) ws.terminate();
      else {
        alive.set(ws, false);
        ws.ping();
      }
    }
  }, options.heartbeatMs ?? 15_000);
  heartbeat.unref();

  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 1234, host, () => done());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://${urlHost(host)}:${port}`,
    engineUrl: engineUrl(),
    server,
    stats: () => pool.stats(),
    close: () =>
      new Promise((done) => {
        clearInterval(heartbeat);
        for (const ws of sockets.clients) ws.close(1001, 'relay stopping');
        sockets.close();
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
