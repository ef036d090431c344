import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { LmtabError } from '../errors/index.js';
import { isLoopbackName } from './host-check.js';

/** Who must present an API key. */
export interface ClientKeys {
  /** Accepted keys; none means the API is open. */
  keys: readonly string[];
  /**
   * `everyone` for keys given with `--api-key` or `LMTAB_API_KEY`; `remote` for the key the relay
   * made itself when bound beyond loopback: programs on this machine (loopback addresses) stay
   * free to call it, as they are on a loopback relay.
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

/**
 * Checks a `/v1` or `/api` request's key: undefined when it may pass, else the 401 to answer.
 * `remoteAddress` is the client's address as the socket reports it.
 */
export function checkClientKey(
  headers: IncomingHttpHeaders,
  remoteAddress: string | undefined,
  rule: ClientKeys,
): LmtabError | undefined {
  if (rule.keys.length === 0) return undefined;
  if (rule.required === 'remote' && remoteAddress !== undefined && isLoopbackName(remoteAddress)) {
    return undefined;
  }
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
