import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorResponse } from '../../api/wire.js';
import { CONTAINER_PORT } from '../cloud-defaults.js';
import { LmtabError, toLmtabError } from '../../errors/index.js';
import { authorizeRequest, EXPECTED_AUTHORIZATION, requiredScope } from './authorize-request.js';
import { formatAccessLog, matchGatewayRoute } from './gateway-routing.js';
import { GATEWAY_TOKEN_HEADER } from './gateway-token.js';
import type { GatewayRoute, RouteMatch } from './gateway-routing.js';
import type { KeyInfo, KeyRecord } from './key-store.js';
import { proxyRequest, sendWebResponse } from './proxy-request.js';

/** Options of {@link createGateway}. */
export interface GatewayOptions {
  /** The apps behind the gateway; a function is asked on every request (routes may change). */
  routes:
    readonly GatewayRoute[] | (() => readonly GatewayRoute[] | Promise<readonly GatewayRoute[]>);
  /** The stored keys (hashes), asked on every request to a private app. */
  keys: () => Promise<readonly KeyRecord[]>;
  /** Interface to listen on; default `127.0.0.1`. */
  host?: string;
  /** Port; default {@link CONTAINER_PORT} (0: any free port). */
  port?: number;
  /** Receives one access log line per request (never a key); default none. */
  log?: (line: string) => void;
  /** Current time, for the log; default `() => new Date()`. */
  now?: () => Date;
  /** `X-Forwarded-Proto` when the client's own header is absent; default `http`. */
  protocol?: 'http' | 'https';
  /**
   * The token the apps' replicas require (`LMTAB_GATEWAY_TOKEN`), sent with every forwarded
   * request in {@link GATEWAY_TOKEN_HEADER}; default none (apps that check no token).
   */
  replicaToken?: string;
}

/** A running gateway. */
export interface Gateway {
  /** `http://HOST:PORT`. */
  url: string;
  server: Server;
  close(): Promise<void>;
}

function sendError(pathname: string, error: LmtabError, out: ServerResponse): Promise<void> {
  const response = errorResponse(pathname, error);
  if (error.code === 'unauthorized') {
    response.headers.set('WWW-Authenticate', 'Key realm="lmtab"');
    response.headers.set('X-Lmtab-Expected-Authorization', EXPECTED_AUTHORIZATION);
  }
  return sendWebResponse(response, out);
}

/**
 * The gateway: owns the public URL, answers `/ORG/APP/v1/...` and `/ORG/APP/api/...` by checking
 * the app's auth (`Authorization: Key <API_KEY>` for private apps) and forwarding to the app with
 * the prefix and the key removed. `/health` answers 200 for probes.
 */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const routes =
    typeof options.routes === 'function'
      ? options.routes
      : async () => options.routes as readonly GatewayRoute[];
  const now = options.now ?? (() => new Date());
  const handle = async (
    request: IncomingMessage,
    response: ServerResponse,
    note: (key: KeyInfo | undefined) => void,
  ) => {
    const url = request.url ?? '/';
    if (new URL(url, 'http://gateway').pathname === '/health') {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ status: 'ok', apps: (await routes()).length }));
      return;
    }
    let match: RouteMatch;
    try {
      match = matchGatewayRoute(url, await routes());
    } catch (error) {
      await sendError(new URL(url, 'http://gateway').pathname, toLmtabError(error), response);
      return;
    }
    // Browsers ask before sending Authorization across origins; preflights carry no key.
    if (request.method === 'OPTIONS') {
      response.writeHead(204, {
        'access-control-allow-origin': '*',
        'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
        'Access-Control-Allow-Headers':
          request.headers['access-control-request-headers'] ?? 'Authorization, Content-Type',
        'Access-Control-Max-Age': '600',
      });
      response.end();
      return;
    }
    const needed = requiredScope(match.path);
    const records =
      match.route.auth === 'private' || needed === 'admin' ? await options.keys() : [];
    const decision = authorizeRequest(
      request.headers.authorization,
      match.route.auth,
      records,
      needed,
    );
    if (!decision.ok) {
      request.resume();
      await sendError(match.pathname, decision.error, response);
      return;
    }
    note(decision.key);
    try {
      await proxyRequest(request, response, {
        upstream: match.route.upstream,
        path: match.path,
        prefix: match.prefix,
        timeoutSeconds: match.route.timeoutSeconds,
        protocol: options.protocol ?? 'http',
        addHeaders:
          options.replicaToken === undefined
            ? undefined
            : { [GATEWAY_TOKEN_HEADER]: options.replicaToken },
      });
    } catch (error) {
      const cause = error instanceof LmtabError ? error : undefined;
      await sendError(
        match.pathname,
        cause ??
          new LmtabError(
            'no_engine',
            `The app ${match.prefix} did not answer: expected its server at ${match.route.upstream} to accept the request, got ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`,
            { retryAfter: 5, cause: error },
          ),
        response,
      );
    }
  };
  const server = createServer((request, response) => {
    const started = performance.now();
    let keyId: string | undefined;
    response.on('close', () => {
      options.log?.(
        formatAccessLog({
          time: now(),
          method: request.method ?? 'GET',
          url: request.url ?? '/',
          status: response.statusCode,
          durationMs: performance.now() - started,
          keyId,
        }),
      );
    });
    handle(request, response, (key) => {
      keyId = key?.id;
    }).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'Content-Type': 'text/plain' });
      response.end(`Gateway error: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? CONTAINER_PORT, host, () => done());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    server,
    close: () =>
      new Promise((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
