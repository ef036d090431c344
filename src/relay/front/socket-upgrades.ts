import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { engineProtocol, engineSecretProtocolPrefix, engineSocketPath } from '../../bridge/wire.js';
import { checkClientKey, sameSecret } from '../trust/client-auth.js';
import { decideCors } from '../trust/cors-policy.js';
import { attachEngineSocket, type EngineSocket } from '../exchange/engine-socket.js';
import {
  chooseRealtimeProtocol,
  offeredProtocols,
  realtimeKeyHeaders,
  realtimePath,
  serveRealtime,
} from '../exchange/realtime-socket.js';
import type { RelayContext } from './relay-context.js';
import { defaultHeartbeatMs, engineHeartbeat } from '../relay-defaults.js';
import { EngineHeartbeat } from '../exchange/engine-heartbeat.js';

/** Slots the relay believes one tab has at most, whatever it announces. */
const maxEngineSlots = 64;

/** The relay's WebSockets: engine tabs and Realtime clients, and the pings that keep them honest. */
export interface SocketUpgrades {
  /** Answers an HTTP upgrade: an engine tab or a Realtime client joins, or is refused. */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** The engine tabs connected. */
  engines: ReadonlySet<EngineSocket>;
  /** Every socket open, engine tabs and Realtime clients. */
  clients(): WebSocket[];
  /** Stops the pings (first thing when the relay stops: no socket is dropped while it drains). */
  stopPings(): void;
  /** Closes both socket servers (what is left open is the caller's to end). */
  close(): void;
}

/**
 * The WebSocket side of the relay. Engine tabs join only with the relay's secret; Realtime clients
 * are checked like API requests (`Host`, the page's Origin, the key). A socket that misses one
 * ping is dropped.
 */
export function createSocketUpgrades(context: RelayContext): SocketUpgrades {
  // Engine tabs: each socket joins the pool once it says how many requests it takes at once.
  const sockets = new WebSocketServer({
    noServer: true,
    maxPayload: 16 * 1024 * 1024,
    handleProtocols: (protocols) => (protocols.has(engineProtocol) ? engineProtocol : false),
  });
  const alive = new WeakMap<object, boolean>();
  /** Marks a new socket alive; each pong marks it again (the heartbeat drops one that missed one). */
  const watchAlive = (ws: WebSocket) => {
    alive.set(ws, true);
    ws.on('pong', () => alive.set(ws, true));
  };
  const clients = () => [...sockets.clients, ...realtimeSockets.clients];
  const engines = new Set<EngineSocket>();
  function upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
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
    const wrongHost = context.hostRefusal(request);
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
    if (!sameSecret(secret, context.engineSecret)) {
      return refuse(
        '401 Unauthorized',
        'Wrong engine secret: it is not this relay’s (it changes when LMTAB_HOME/relay-secret is ' +
          'deleted). Open the pairing link `lmtab serve` prints again.',
      );
    }
    sockets.handleUpgrade(request, socket, head, (ws) => {
      watchAlive(ws);
      let joined = false;
      let heartbeat: EngineHeartbeat | undefined;
      const engine: EngineSocket = attachEngineSocket(ws, {
        onHello: (hello) => {
          const capacity = Math.min(hello.capacity, maxEngineSlots);
          context.pool.add(engine, capacity);
          joined = true;
          const engines = context.pool.stats().engines.length;
          context.engineEvent({
            type: 'connected',
            engines,
            capacity,
            version: hello.version,
          });
          if (hello.heartbeat) heartbeat = watchPage(engine);
        },
        onSlots: (capacity) => context.pool.resize(engine, Math.min(capacity, maxEngineSlots)),
        onPong: () => heartbeat?.pong(),
        onClose: () => {
          heartbeat?.stop();
          context.pool.remove(engine);
          engines.delete(engine);
          if (!joined) return;
          context.engineEvent({
            type: 'disconnected',
            engines: context.pool.stats().engines.length,
          });
        },
      });
      engines.add(engine);
    });
  }

  /**
   * Sets an engine tab aside while its page answers no ping (frozen, suspended), and takes it back
   * when the page answers again.
   */
  function watchPage(engine: EngineSocket): EngineHeartbeat {
    let silentFor = 0;
    return new EngineHeartbeat({
      ...engineHeartbeat,
      ...context.options.engineHeartbeat,
      ping: (id) => engine.ping(id),
      onSilent: (silentMs) => {
        silentFor = silentMs;
        context.pool.setAside(engine, true);
        context.engineEvent({
          type: 'set-aside',
          engines: context.pool.stats().engines.length,
          silentMs,
        });
      },
      onAnswering: (asideMs) => {
        context.pool.setAside(engine, false);
        engine.rejoined(asideMs, silentFor);
        context.engineEvent({
          type: 'rejoined',
          engines: context.pool.stats().engines.length,
          asideMs,
        });
      },
    });
  }
  // Realtime clients: a WebSocket is not bound by CORS, so a page's Origin is checked here, and
  // the key as on any API request (a browser offers it as a subprotocol).
  const realtimeSockets = new WebSocketServer({
    noServer: true,
    maxPayload: context.maxBodyBytes,
    handleProtocols: chooseRealtimeProtocol,
  });
  function upgradeRealtime(
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    refuse: (status: string, reason?: string) => void,
  ): void {
    const { corsOrigins } = context;
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
      context.clientKeys,
    );
    if (unauthorized) return refuse('401 Unauthorized', unauthorized.message);
    const id = context.nextRequestId();
    realtimeSockets.handleUpgrade(request, socket, head, (ws) => {
      watchAlive(ws);
      void serveRealtime(ws, {
        pool: context.pool,
        id,
        url: request.url ?? realtimePath,
        onLog: context.logRequest,
      });
    });
  }

  const heartbeat = setInterval(() => {
    for (const ws of clients()) {
      if (!alive.get(ws)) ws.terminate();
      else {
        alive.set(ws, false);
        ws.ping();
      }
    }
  }, context.options.heartbeatMs ?? defaultHeartbeatMs);
  heartbeat.unref();

  return {
    upgrade,
    engines,
    clients,
    stopPings: () => clearInterval(heartbeat),
    close() {
      sockets.close();
      realtimeSockets.close();
    },
  };
}
