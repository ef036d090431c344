import type { LmtabError } from '../../errors/index.js';
import { errorHeaders } from '../error-headers.js';
import { jsonResponse } from '../json-response.js';

/** The body of an Ollama error: `{"error": "..."}`. */
export interface OllamaErrorBody {
  error: string;
}

/** Maps an LmtabError to Ollama's error body. */
export function ollamaErrorBody(error: LmtabError): OllamaErrorBody {
  return { error: error.message };
}

/** An Ollama error response with the error's status (and `Retry-After` when busy). */
export function ollamaErrorResponse(error: LmtabError): Response {
  return jsonResponse(ollamaErrorBody(error), error.status, errorHeaders(error));
}
