/** Stable, machine-readable error codes; each protocol maps them to its own status and shape once. */
export type LmtabErrorCode =
  | 'invalid_request'
  | 'context_length_exceeded'
  | 'unauthorized'
  | 'model_not_found'
  | 'not_found'
  | 'body_too_large'
  | 'engine_busy'
  | 'no_engine'
  | 'engine_timeout'
  | 'engine_failure'
  | 'gpu_device_lost'
  | 'download_failed'
  | 'checksum_mismatch'
  | 'quota_exceeded'
  | 'model_too_large'
  | 'aborted';

/** Options of an {@link LmtabError}. */
export interface LmtabErrorOptions {
  /** HTTP status the error maps to; defaults from the code (400 for `invalid_request`, ...). */
  status?: number;
  /** Name of the request field at fault, when there is one (OpenAI's `param`). */
  param?: string;
  /** Seconds a client should wait before retrying (`Retry-After`), for busy errors. */
  retryAfter?: number;
  /** The underlying error. */
  cause?: unknown;
}

const defaultStatus: Record<LmtabErrorCode, number> = {
  invalid_request: 400,
  context_length_exceeded: 400,
  unauthorized: 401,
  model_not_found: 404,
  not_found: 404,
  body_too_large: 413,
  engine_busy: 503,
  no_engine: 503,
  engine_timeout: 504,
  engine_failure: 500,
  // The request is lost, the engine is not: the next one is served (on the CPU if need be).
  gpu_device_lost: 503,
  download_failed: 502,
  checksum_mismatch: 502,
  quota_exceeded: 507,
  // The model needs more memory than the engine can address or the device has (Ollama: 500).
  model_too_large: 507,
  aborted: 499,
};

/** The one error type of lmtab: a stable code, a message that says what was expected and what arrived. */
export class LmtabError extends Error {
  readonly code: LmtabErrorCode;
  readonly status: number;
  readonly param: string | undefined;
  readonly retryAfter: number | undefined;

  constructor(code: LmtabErrorCode, message: string, options: LmtabErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'LmtabError';
    this.code = code;
    this.status = options.status ?? defaultStatus[code];
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
