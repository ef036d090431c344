import { errorTable } from './error-table.js';
import type { LmtabErrorCode } from './error-table.js';

/** Options of an {@link LmtabError}. */
export interface LmtabErrorOptions {
  /** Name of the request field at fault, when there is one (OpenAI's `param`). */
  param?: string;
  /** Seconds a client should wait before retrying (`Retry-After`), for busy errors. */
  retryAfter?: number;
  /** The underlying error. */
  cause?: unknown;
}

/**
 * The one error type of lmtab: a stable code, a message that says what was expected and what
 * arrived. The status comes from the code's row of the error table, so one code is one status.
 */
export class LmtabError extends Error {
  readonly code: LmtabErrorCode;
  readonly status: number;
  readonly param: string | undefined;
  readonly retryAfter: number | undefined;

  constructor(code: LmtabErrorCode, message: string, options: LmtabErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'LmtabError';
    this.code = code;
    this.status = errorTable[code].status;
    this.param = options.param;
    this.retryAfter = options.retryAfter;
  }
}

/** Wraps anything thrown into an LmtabError, keeping one that already is. */
export function toLmtabError(
  error: unknown,
  fallback: LmtabErrorCode = 'engine_failure',
): LmtabError {
  if (error instanceof LmtabError) return error;
  if (error instanceof DOMException && error.name === 'AbortError') {
    return new LmtabError('aborted', 'The request was aborted by the client.', { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new LmtabError(fallback, message, { cause: error });
}
