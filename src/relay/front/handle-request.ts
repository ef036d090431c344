import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorResponse } from '../../api/wire.js';
import { isApiPath, relaySessionPath } from '../../bridge/wire.js';
import type { RelaySession } from '../../bridge/wire.js';
import { LmtabError } from '../../errors/index.js';
import { checkClientKey, presentedKey, sameSecret, viaProxy } from '../trust/client-auth.js';
import { decideCors, preflightHeaders } from '../trust/cors-policy.js';
import { forwardRequest, sendResponse } from '../exchange/forward-request.js';
import { hostName, isLoopbackName } from '../trust/host-check.js';
import type { RelayContext } from './relay-context.js';
import { isolationHeaders, serveStatic } from './static-files.js';

/**
 * Answers one HTTP request: the `Host` checked first (DNS rebinding), then the page's session,
 * `/metrics`, the bodies engine tabs fetch, `/health` and the API (CORS, the client key, then
 * forwarded to a tab), and the app's static files.
 */
export async function handleRequest(
  context: RelayContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const { bodies, clientKeys, corsOrigins, options } = context;
  const { pathname } = new URL(request.url ?? '/', 'http://relay');
  const api = isApiPath(pathname);
  const wrongHost = context.hostRefusal(request);
  if (wrongHost) {
    if (api) {
      return sendResponse(errorResponse(pathname, wrongHost), response, isolationHeaders, request);
    }
    response.writeHead(403, { ...isolationHeaders, 'Content-Type': 'text/plain' });
    return void response.end(`${wrongHost.message}\n`);
  }
  if (pathname === relaySessionPath) return answerSession(context, request, response);
  if (pathname === '/metrics') return answerMetrics(context, request, response);
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
      return void response.end(JSON.stringify(context.health()));
    }
    const unauthorized = checkClientKey(request.headers, request.socket.remoteAddress, clientKeys);
    if (unauthorized) {
      return sendResponse(
        errorResponse(pathname, unauthorized),
        response,
        { ...headers, 'WWW-Authenticate': 'Bearer' },
        request,
      );
    }
    // Model files stream to the tab's store through /api/blobs; JSON bodies stay small.
    const blob = pathname.startsWith('/api/blobs/');
    return forwardRequest(request, response, {
      pool: context.pool,
      bodies,
      maxBodyBytes: blob ? context.maxBlobBytes : context.maxBodyBytes,
      limitFlag: blob ? '--max-blob' : '--max-body',
      id: context.nextRequestId(),
      headers,
      engineTimeoutMs: options.engineTimeoutMs,
      onLog: context.logRequest,
    });
  }
  if (await serveStatic(context.appDir, request, response)) return;
  response.writeHead(404, { ...isolationHeaders, 'Content-Type': 'text/plain' });
  // Never echo unbounded input.
  response.end(`Not found: ${pathname.length > 200 ? `${pathname.slice(0, 200)}…` : pathname}\n`);
}

/**
 * The engine secret and API key, for the page this relay serves, once it proves it holds the
 * secret (`Authorization: Bearer SECRET`, from the link the relay printed): headers such as
 * Sec-Fetch-Site prove nothing, since any local program can send them, and the route must not
 * give away more than `LMTAB_HOME/relay-secret` (mode 0600) does. Only same-origin requests from
 * a loopback address by a loopback name, and never with CORS headers.
 */
function answerSession(
  context: RelayContext,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  const { engineSecret, clientKeys } = context;
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
}

/**
 * `GET /metrics`: the relay's metrics in Prometheus' text format, for a scraper. Under the API's
 * key rules (a LAN client needs the key when keys are set); no CORS headers, so no page of
 * another origin reads them.
 */
function answerMetrics(
  context: RelayContext,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  const headers = { ...isolationHeaders, 'Cache-Control': 'no-store' };
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { ...headers, Allow: 'GET, HEAD', 'Content-Type': 'text/plain' });
    return void response.end(`/metrics answers GET, not ${request.method ?? 'this method'}.\n`);
  }
  const unauthorized = checkClientKey(
    request.headers,
    request.socket.remoteAddress,
    context.clientKeys,
  );
  if (unauthorized) {
    response.writeHead(unauthorized.status, {
      ...headers,
      'WWW-Authenticate': 'Bearer',
      'Content-Type': 'text/plain',
    });
    return void response.end(`${unauthorized.message}\n`);
  }
  const text = context.metrics.format(context.pool.stats());
  response.writeHead(200, {
    ...headers,
    'Content-Type': 'text/plain; version=0.0.4; charset=utf-8',
  });
  response.end(request.method === 'HEAD' ? undefined : text);
}
