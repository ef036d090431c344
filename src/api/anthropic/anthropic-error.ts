import type { LmtabError, LmtabErrorCode } from '../../errors/index.js';
import { errorHeaders } from '../error-headers.js';
import { jsonResponse } from '../json-response.js';

/** The body of an Anthropic error, as a response and as the `error` event of a broken stream. */
export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
}

/** Anthropic's error `type` for each lmtab error code (the one place this mapping lives). */
const anthropicErrorTypes: Readonly<Record<LmtabErrorCode, string>> = {
  invalid_request: 'invalid_request_error',
  context_length_exceeded: 'invalid_request_error',
  unauthorized: 'authentication_error',
  model_not_found: 'not_found_error',
  not_found: 'not_found_error',
  body_too_large: 'request_too_large',
  engine_busy: 'overloaded_error',
  no_engine: 'overloaded_error',
  engine_timeout: 'timeout_error',
  engine_failure: 'api_error',
  gpu_device_lost: 'api_error',
  download_failed: 'api_error',
  checksum_mismatch: 'api_error',
  quota_exceeded: 'api_error',
  model_too_large: 'invalid_request_error',
  aborted: 'invalid_request_error',
};

/** Maps an LmtabError to Anthropic's error body. */
export function anthropicErrorBody(error: LmtabError): AnthropicErrorBody {
  return {
    type: 'error',
    error: { type: anthropicErrorTypes[error.code], message: error.message },
  };
}

/** An Anthropic error response with the error's status (and `Retry-After` when busy). */
export function anthropicErrorResponse(error: LmtabError): Response {
  return jsonResponse(anthropicErrorBody(error), error.status, errorHeaders(error));
}

/** The SSE `error` event that ends a Messages stream which failed after its head was sent. */
export function anthropicStreamError(error: LmtabError): string {
  return `event: error\ndata: ${JSON.stringify(anthropicErrorBody(error))}\n\n`;
}
