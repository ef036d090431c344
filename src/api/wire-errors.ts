import { LmtabError } from '../errors/index.js';
import type { LmtabErrorCode } from '../errors/index.js';
import { formatNdjsonLine } from './ndjson-encoder.js';
import { ollamaErrorBody, ollamaErrorResponse } from './ollama/ollama-error.js';
import { openAiErrorBody, openAiErrorResponse, openAiErrorTypes } from './openai/openai-error.js';
import { formatSseEvent } from './sse-encoder.js';

// Transports (service worker, relay) answer errors raised before the router is reached; they
// delegate to the router's own mapping so both sides answer the same shapes.

export { openAiErrorBody };

/** Accepts a code that crossed a transport as a plain string (unknown codes: `engine_failure`). */
export function asLmtabError(code: string, message: string): LmtabError {
  const known = Object.hasOwn(openAiErrorTypes, code) ? (code as LmtabErrorCode) : 'engine_failure';
  return new LmtabError(known, message);
}

/** Whether a path is answered in OpenAI's shapes (`/v1`) rather than the native ones (`/api`). */
export function isOpenAiPath(pathname: string): boolean {
  return !pathname.startsWith('/api/') && pathname !== '/api';
}

/** The JSON error answer for a path's protocol: OpenAI's `{error: {...}}` or native `{error}`. */
export function errorResponse(pathname: string, error: LmtabError): Response;
export function errorResponse(pathname: string, code: string, message: string): Response;
export function errorResponse(
  pathname: string,
  errorOrCode: LmtabError | string,
  message = '',
): Response {
  const error = typeof errorOrCode === 'string' ? asLmtabError(errorOrCode, message) : errorOrCode;
  return isOpenAiPath(pathname) ? openAiErrorResponse(error) : ollamaErrorResponse(error);
}

/**
 * The last bytes of a stream that failed after it began: a final SSE `data: {"error": ...}` event,
 * or an NDJSON `{"error": ...}` line; undefined for other content types.
 */
export function streamErrorBytes(
  code: string,
  message: string,
  contentType: string,
): Uint8Array | undefined {
  const error = asLmtabError(code, message);
  if (contentType.startsWith('text/event-stream')) {
    return new TextEncoder().encode(formatSseEvent(openAiErrorBody(error)));
  }
  if (contentType.startsWith('application/x-ndjson')) {
    return new TextEncoder().encode(formatNdjsonLine(ollamaErrorBody(error)));
  }
  return undefined;
}
