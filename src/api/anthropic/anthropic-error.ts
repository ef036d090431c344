import { errorTable } from '../../errors/index.js';
import type { LmtabError } from '../../errors/index.js';
import { errorHeaders } from '../encoders/error-headers.js';
import { jsonResponse } from '../encoders/json-response.js';

/** The body of an Anthropic error, as a response and as the `error` event of a broken stream. */
export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
}

/** Maps an LmtabError to Anthropic's error body. */
export function anthropicErrorBody(error: LmtabError): AnthropicErrorBody {
  return {
    type: 'error',
    error: { type: errorTable[error.code].anthropicType, message: error.message },
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
