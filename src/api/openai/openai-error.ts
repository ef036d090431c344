import { errorTable } from '../../errors/index.js';
import type { LmtabError } from '../../errors/index.js';
import { errorHeaders } from '../encoders/error-headers.js';
import { jsonResponse } from '../encoders/json-response.js';

/** The body of an OpenAI error, as a response and as the last event of a broken stream. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string };
}

/** Maps an LmtabError to OpenAI's error body (`type` from the error table, `code` the lmtab code). */
export function openAiErrorBody(error: LmtabError): OpenAiErrorBody {
  return {
    error: {
      message: error.message,
      type: errorTable[error.code].openAiType,
      param: error.param ?? null,
      code: error.code,
    },
  };
}

/** An OpenAI error response with the error's status (and `Retry-After` when busy). */
export function openAiErrorResponse(error: LmtabError): Response {
  return jsonResponse(openAiErrorBody(error), error.status, errorHeaders(error));
}
