import { errorCodeHeader } from '../../errors/index.js';
import type { LmtabError } from '../../errors/index.js';

// A busy engine frees up within seconds (one generation), so clients that honour it retry soon.
const defaultRetryAfterSeconds = 1;

/**
 * Headers of every error response: the code (`X-Lmtab-Error-Code`, the only place it travels in
 * Ollama's and Anthropic's shapes) and `Retry-After` for busy (429/503) errors.
 */
export function errorHeaders(error: LmtabError): Record<string, string> {
  const busy = error.status === 429 || error.status === 503;
  const retryAfter = error.retryAfter ?? (busy ? defaultRetryAfterSeconds : undefined);
  return {
    [errorCodeHeader]: error.code,
    ...(retryAfter === undefined ? {} : { 'Retry-After': String(Math.ceil(retryAfter)) }),
  };
}
