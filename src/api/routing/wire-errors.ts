import { LmtabError, isLmtabErrorCode } from '../../errors/index.js';
import { openAiErrorBody } from '../openai/openai-error.js';
import { errorsForPath } from './protocol-errors.js';

// Transports (service worker, relay) answer errors raised before the router is reached; they
// delegate to the router's own mapping so both sides answer the same shapes.

export { openAiErrorBody };

/** Accepts a code that crossed a transport as a plain string (unknown codes: `engine_failure`). */
export function asLmtabError(code: string, message: string): LmtabError {
  return new LmtabError(isLmtabErrorCode(code) ? code : 'engine_failure', message);
}

/** Whether a path is answered in OpenAI's shapes (`/v1`) rather than the native ones (`/api`). */
export function isOpenAiPath(pathname: string): boolean {
  return !pathname.startsWith('/api/') && pathname !== '/api';
}

/**
 * The JSON error answer in the shape of the path's protocol: OpenAI's `{error: {...}}`, native
 * `{error}`, Anthropic's `{type: "error", error: {...}}`.
 */
export function errorResponse(pathname: string, error: LmtabError): Response;
export function errorResponse(pathname: string, code: string, message: string): Response;
export function errorResponse(
  pathname: string,
  errorOrCode: LmtabError | string,
  message = '',
): Response {
  const error = typeof errorOrCode === 'string' ? asLmtabError(errorOrCode, message) : errorOrCode;
  return errorsForPath(pathname).response(error);
}

/**
 * The last bytes of a stream that failed after it began, in the stream's protocol (the path's):
 * a final SSE error event or an NDJSON `{"error": ...}` line; undefined for other content types.
 * Without a path, SSE streams get OpenAI's event.
 */
export function streamErrorBytes(
  code: string,
  message: string,
  contentType: string,
  pathname = '/v1',
): Uint8Array | undefined {
  const streamed =
    contentType.startsWith('text/event-stream') || contentType.startsWith('application/x-ndjson');
  if (!streamed) return undefined;
  const error = asLmtabError(code, message);
  const protocol = contentType.startsWith('application/x-ndjson') ? '/api' : pathname;
  return new TextEncoder().encode(errorsForPath(protocol).streamTail(error));
}
