import type { IncomingHttpHeaders } from 'node:http';
import { isApiPath } from '../../bridge/wire.js';
import { LmtabError } from '../../errors/index.js';
import type { AppAuth } from './authorize-request.js';
import { GATEWAY_TOKEN_HEADER } from './gateway-token.js';

/** One app behind the gateway, reached at `/ORG/APP/v1/...` and `/ORG/APP/api/...`. */
export interface GatewayRoute {
  org: string;
  app: string;
  auth: AppAuth;
  /** Base URL of the app's own server (a Knative Service inside the cluster, or a local relay). */
  upstream: string;
  /** Longest a forwarded request may take, in seconds; default none. */
  timeoutSeconds?: number;
}

/** A request path matched to its route. */
export interface RouteMatch {
  route: GatewayRoute;
  /** `/ORG/APP`. */
  prefix: string;
  /** The path the app sees, with the query: `/v1/chat/completions?x=1`. */
  path: string;
  /** The path the app sees, without the query (decides the error shape). */
  pathname: string;
}

/** The base URL path of an app: `/ORG/APP`. */
export function routePrefix(route: Pick<GatewayRoute, 'org' | 'app'>): string {
  return `/${route.org}/${route.app}`;
}

/**
 * Finds the route of `/ORG/APP/REST` and strips the prefix. Throws `not_found` when no app lives
 * at `/ORG/APP` or when REST is not under `/v1` or `/api`.
 */
export function matchGatewayRoute(url: string, routes: readonly GatewayRoute[]): RouteMatch {
  const { pathname, search } = new URL(url, 'http://gateway');
  const [, org = '', app = '', ...rest] = pathname.split('/');
  const route = routes.find((candidate) => candidate.org === org && candidate.app === app);
  if (route === undefined) {
    throw new LmtabError(
      'not_found',
      `Expected a path /ORG/APP/v1/... naming a deployed app, got ${JSON.stringify(pathname)}: no app is deployed at /${org}/${app}.`,
    );
  }
  const stripped = `/${rest.join('/')}`;
  if (!isApiPath(stripped)) {
    throw new LmtabError(
      'not_found',
      `Expected a path under ${routePrefix(route)}/v1 or ${routePrefix(route)}/api, got ${JSON.stringify(pathname)}.`,
    );
  }
  return { route, prefix: routePrefix(route), path: stripped + search, pathname: stripped };
}

// Hop-by-hop headers (RFC 9110 7.6.1) belong to one connection and are never forwarded.
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Facts about the client's request that the app may want (`X-Forwarded-*`). */
export interface ForwardedFacts {
  /** The URL prefix the client used (`/ORG/APP`); empty for none. */
  prefix: string;
  host: string | undefined;
  protocol: 'http' | 'https';
  clientAddress: string | undefined;
}

/**
 * Request headers that stay at the gateway; a client's own gateway token is dropped too (only the
 * gateway sets it).
 */
const credentials = new Set([
  'authorization',
  'cookie',
  'x-api-key',
  'origin',
  'proxy-authorization',
  GATEWAY_TOKEN_HEADER,
]);

/**
 * The headers sent to the app: the client's, without hop-by-hop headers, `Host`, credentials
 * (the key stays at the gateway) and `Origin` (the gateway answers CORS), with `X-Forwarded-*`.
 */
export function forwardHeaders(
  incoming: IncomingHttpHeaders,
  facts: ForwardedFacts,
): Record<string, string | string[]> {
  const named = new Set(
    String(incoming.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase()),
  );
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(incoming)) {
    // The gateway answers CORS itself and checks the key: the app behind it sees neither the
    // page's Origin (its relay would refuse another site's page) nor the client's credentials.
    if (value === undefined || name === 'host' || credentials.has(name)) continue;
    if (hopByHop.has(name) || named.has(name) || name.startsWith('x-forwarded-')) continue;
    headers[name] = value;
  }
  if (facts.prefix !== '') headers['x-forwarded-prefix'] = facts.prefix;
  headers['x-forwarded-proto'] = facts.protocol;
  if (facts.host !== undefined) headers['x-forwarded-host'] = facts.host;
  if (facts.clientAddress !== undefined) headers['x-forwarded-for'] = facts.clientAddress;
  return headers;
}

/** One line of the gateway's access log. */
export interface AccessLogEntry {
  time: Date;
  method: string;
  /** The request URL as received; only its path is logged. */
  url: string;
  status: number;
  durationMs: number;
  /** Id of the key that was accepted, never the key. */
  keyId: string | undefined;
}

/**
 * Formats an access log line: time, method, path (the query is dropped: clients sometimes put
 * secrets there), status, duration and key id. No header value is ever logged.
 */
export function formatAccessLog(entry: AccessLogEntry): string {
  const { pathname } = new URL(entry.url, 'http://gateway');
  const key = entry.keyId === undefined ? '' : ` key=${entry.keyId}`;
  return `${entry.time.toISOString()} ${entry.method} ${pathname} ${entry.status} ${Math.round(entry.durationMs)}ms${key}`;
}
