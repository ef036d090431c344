import { LmtabError, type LmtabErrorCode } from '../errors/index.js';

const openAiTypes: Record<LmtabErrorCode, string> = {
  invalid_request: 'invalid_request_error',
  unauthorized: 'authentication_error',
  model_not_found: 'invalid_request_error',
  not_found: 'invalid_request_error',
  body_too_large: 'invalid_request_error',
  engine_busy: 'server_error',
  no_engine: 'server_error',
  engine_failure: 'server_error',
  download_failed: 'server_error',
  checksum_mismatch: 'server_error',
  quota_exceeded: 'server_error',
  aborted: 'invalid_request_error',
};

/** Accepts a code that crossed a transport as a plain string. */
export function asLmtabError(code: string, message: string): LmtabError {
  const known = code in openAiTypes ? (code as LmtabErrorCode) : 'engine_failure';
  return new LmtabError(known, message);
}

/** OpenAI's error body for an LmtabError. */
export function openAiErrorBody(error: LmtabError) {
  return {
    error: {
      message: error.message,
      type: openAiTypes[error.code],
      param: error.param ?? null,
      code: error.code,
    },
  };
}

/** Whether a path is answered in OpenAI's shapes (`/v1`) rather than the native ones (`/api`). */
export function isOpenAiPath(pathname: string): boolean {
  return !pathname.startsWith('/api/') && pathname !== '/api';
}

/** The JSON error answer for a path's protocol: OpenAI's `{error: {...}}` or native `{error}`. */
export function errorResponse(pathname: string, error: LmtabError): Response;
export function errorResponse(pathname: string, code: string, message: string): Response;
export function errorResponse(pathname: string, errorOrCode: LmtabError | string, message = ''): Response {
  const error = typeof errorOrCode === 'string' ? asLmtabError(errorOrCode, message) : errorOrCode;
  const body = isOpenAiPath(pathname) ? openAiErrorBody(error) : { error: error.message };
  const headers = new Headers({ 'Content-Type': 'application/json' });
  if (error.retryAfter !== undefined) headers.set('Retry-After', String(error.retryAfter));
  return new Response(JSON.stringify(body), { status: error.status, headers });
}

/**
 * The last bytes of a stream that failed after it began: a final SSE `data: {"error": ...}` event,
 * or an NDJSON `{"error": ...}` line; undefined for other content types.
 */
export function streamErrorBytes(code: string, message: string, contentType: string): Uint8Array | undefined {
  const error = asLmtabError(code, message);
  if (contentType.startsWith('text/event-stream')) {
    return new TextEncoder().encode(`data: ${JSON.stringify(openAiErrorBody(error))}\n\n`);
  }
  if (contentType.startsWith('application/x-ndjson')) {
    return new TextEncoder().encode(`${JSON.stringify({ error: error.message })}\n`);
  }
  return undefined;
}
