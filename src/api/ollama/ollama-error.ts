import type { LmtabError, LmtabErrorCode } from '../../errors/index.js';
import { errorHeaders } from '../encoders/error-headers.js';
import { jsonResponse } from '../encoders/json-response.js';

/** The body of an Ollama error: `{"error": "..."}` (the code travels in a header beside it). */
export interface OllamaErrorBody {
  error: string;
}

/** The last line of an NDJSON stream that failed after its head: no header can carry the code. */
export interface OllamaStreamError extends OllamaErrorBody {
  code: LmtabErrorCode;
}

/** Maps an LmtabError to Ollama's error body. */
export function ollamaErrorBody(error: LmtabError): OllamaErrorBody {
  return { error: error.message };
}

/** Maps an LmtabError to the error line that ends a broken NDJSON stream, code beside message. */
export function ollamaStreamError(error: LmtabError): OllamaStreamError {
  return { error: error.message, code: error.code };
}

/** An Ollama error response with the error's status, its code header (and `Retry-After`). */
export function ollamaErrorResponse(error: LmtabError): Response {
  return jsonResponse(ollamaErrorBody(error), error.status, errorHeaders(error));
}
