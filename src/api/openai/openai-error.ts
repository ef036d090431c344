import type { LmtabError, LmtabErrorCode } from '../../errors/index.js';
import { errorHeaders } from '../error-headers.js';
import { jsonResponse } from '../json-response.js';

/** The body of an OpenAI error, as a response and as the last event of a broken stream. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string };
}

/** OpenAI's error `type` for each lmtab error code (the one place this mapping lives). */
export const openAiErrorTypes: Readonly<Record<LmtabErrorCode, string>> = {
  invalid_request: 'invalid_request_error',
  context_length_exceeded: 'invalid_request_error',
  unauthorized: 'authentication_error',
  model_not_found: 'not_found_error',
  not_found: 'not_found_error',
  body_too_large: 'invalid_request_error',
  engine_busy: 'server_error',
  no_engine: 'server_error',
  engine_timeout: 'server_error',
  engine_failure: 'server_error',
  gpu_device_lost: 'server_error',
  download_failed: 'server_error',
  checksum_mismatch: 'server_error',
  quota_exceeded: 'server_error',
  model_too_large: 'invalid_request_error',
  aborted: 'invalid_request_error',
};

/** Maps an LmtabError to OpenAI's error body (`type` from the code, `code` the lmtab code). */
export function openAiErrorBody(error: LmtabError): OpenAiErrorBody {
  return {
    error: {
      message: error.message,
      type: openAiErrorTypes[error.code],
      param: error.param ?? null,
      code: error.code,
    },
  };
}

/** An OpenAI error response with the error's status (and `Retry-After` when busy). */
export function openAiErrorResponse(error: LmtabError): Response {
  return jsonResponse(openAiErrorBody(error), error.status, errorHeaders(error));
}
