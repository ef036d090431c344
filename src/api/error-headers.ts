import type { LmtabError } from '../errors/index.js';

// A busy engine frees up within seconds (one generation), so clients that honour it retry soon.
const defaultRetryAfterSeconds = 1;

/** Extra headers of an error response: `Retry-After` for busy (429/503) errors. */
export function errorHeaders(error: LmtabError): Record<string, string> {
  const busy = error.status === 429 || error.status === 503;
  const retryAfter = error.retryAfter ?? (busy ? defaultRetryAfterSeconds : undefined);
  return retryAfter === undefined ? {} : { 'Retry-After': String(Math.ceil(retryAfter)) };
}
