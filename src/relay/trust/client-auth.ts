import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { LmtabError } from '../../errors/index.js';
import { isLoopbackName } from './host-check.js';

/** Who must present an API key. */
export interface ClientKeys {
  /** Accepted keys; none means the API is open. */
  keys: readonly string[];
  /**
   * `everyone` for keys given with `--api-key` or `LMTAB_API_KEY`, or made with `--require-key`;
   * `remote` for the key the relay made itself when bound beyond loopback: programs on this
   * machine (loopback addresses, without proxy headers) stay free to call it, as they are on a
   * loopback relay.
   */
  required: 'everyone' | 'remote';
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Compares two secrets in constant time (over their hashes, so lengths do not leak either). */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** The key a client presents: `Authorization: Bearer KEY`, or `x-api-key: KEY` (Anthropic SDKs). */
export function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  const authorization = headers.authorization;
  const bearer = authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
  if (bearer !== undefined) return bearer;
  const header = headers['x-api-key'];
  return typeof header === 'string' && header !== '' ? header.trim() : undefined;
}

/** Headers a reverse proxy adds (nginx, Caddy, Traefik, Apache): the client is not the proxy. */
const proxyHeaders = [
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
  'via',
];

/**
 * Whether a request came through a proxy: a proxy on this machine connects from loopback for
 * clients anywhere, so such a request is never taken for a local program's.
 */
export function viaProxy(headers: IncomingHttpHeaders): boolean {
  return proxyHeaders.some((name) => headers[name] !== undefined);
}

/**
 * Checks a `/v1` or `/api` request's key: undefined when it may pass, else the 401 to answer.
 * `remoteAddress` is the client's address as the socket reports it; with `required: 'remote'`,
 * loopback clients pass without a key unless the request carries proxy headers.
 */
export function checkClientKey(
  headers: IncomingHttpHeaders,
  remoteAddress: string | undefined,
  rule: ClientKeys,
): LmtabError | undefined {
  if (rule.keys.length === 0) return undefined;
  const local = remoteAddress !== undefined && isLoopbackName(remoteAddress) && !viaProxy(headers);
  if (rule.required === 'remote' && local) return undefined;
  const key = presentedKey(headers);
  if (key !== undefined && rule.keys.some((expected) => sameSecret(key, expected))) {
    return undefined;
  }
  return new LmtabError(
    'unauthorized',
    key === undefined
      ? 'This relay needs an API key: send `Authorization: Bearer KEY` (or `x-api-key: KEY`). ' +
          'The key is printed by `lmtab serve` and shown in the Developer tab of the page it serves.'
      : 'The API key sent is not one of this relay’s keys: expected the key printed by ' +
          '`lmtab serve` (or one given with --api-key / LMTAB_API_KEY).',
  );
}
