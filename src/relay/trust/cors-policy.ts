import type { IncomingHttpHeaders } from 'node:http';

/** What the relay does about a request's `Origin`. */
export type CorsDecision =
  /** No Origin header (curl, SDKs in Node) or the relay's own origin: no CORS headers needed. */
  | { kind: 'same-origin' }
  /** A listed origin: answer with these headers. */
  | { kind: 'allowed'; headers: Record<string, string> }
  /** Another site's page: refuse, so that pages cannot drive the engine behind the user's back. */
  | { kind: 'refused'; origin: string };

/** The methods the API answers. */
const allowedMethods = 'GET, HEAD, POST, DELETE, OPTIONS';

/**
 * Decides CORS for one request. `origins` lists allowed page origins (`*` for any); the relay's
 * own origin (the Host it was reached by) is always allowed.
 */
export function decideCors(headers: IncomingHttpHeaders, origins: readonly string[]): CorsDecision {
  const origin = headers.origin;
  if (origin === undefined) return { kind: 'same-origin' };
  const host = headers.host;
  if (host !== undefined && (origin === `http://${host}` || origin === `https://${host}`)) {
    return { kind: 'same-origin' };
  }
  const any = origins.includes('*');
  if (!any && !origins.includes(origin)) return { kind: 'refused', origin };
  return {
    kind: 'allowed',
    headers: {
      'Access-Control-Allow-Origin': any ? '*' : origin,
      'Access-Control-Expose-Headers': 'Retry-After, Content-Type, X-Lmtab-Error-Code',
      Vary: 'Origin',
    },
  };
}

/** The extra headers of a preflight (OPTIONS) answer for an allowed origin. */
export function preflightHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const requested = headers['access-control-request-headers'];
  return {
    'Access-Control-Allow-Methods': allowedMethods,
    'Access-Control-Allow-Headers': requested ?? 'Authorization, Content-Type',
    'Access-Control-Max-Age': '600',
    // Chrome asks before a public page may reach a private address (Private Network Access).
    ...(headers['access-control-request-private-network'] === 'true'
      ? { 'Access-Control-Allow-Private-Network': 'true' }
      : {}),
  };
}
