/** What one error code is: its HTTP status, its type in each protocol's shape, its CLI exit status. */
export interface ErrorRow {
  /** The HTTP status of an answer with this code. */
  status: number;
  /** OpenAI's `error.type` (`/v1`). */
  openAiType: string;
  /** Anthropic's `error.type` (`/v1/messages`). */
  anthropicType: string;
  /** The `lmtab` command's exit status when it fails with this code. */
  exitStatus: number;
  /** What the code means, in one sentence (docs/errors.md says the same). */
  meaning: string;
}

// The one place codes are defined. Exit statuses come in tens by kind, so that a script can
// branch on a code or on its kind: 2-9 the request, 10-19 access, 20-29 not found, 30-39 the
// engine or relay, 40-49 downloads, 50-59 space; 130 an interrupted command, as shells count it.
const rows = {
  invalid_request: {
    status: 400,
    openAiType: 'invalid_request_error',
    anthropicType: 'invalid_request_error',
    exitStatus: 2,
    meaning: 'The request is malformed or asks for something lmtab refuses.',
  },
  context_length_exceeded: {
    status: 400,
    openAiType: 'invalid_request_error',
    anthropicType: 'invalid_request_error',
    exitStatus: 3,
    meaning: 'The prompt does not fit the context the model was loaded with.',
  },
  body_too_large: {
    status: 413,
    openAiType: 'invalid_request_error',
    anthropicType: 'request_too_large',
    exitStatus: 4,
    meaning: 'The request body is larger than the relay or router accepts.',
  },
  method_not_allowed: {
    status: 405,
    openAiType: 'invalid_request_error',
    anthropicType: 'invalid_request_error',
    exitStatus: 5,
    meaning: 'The path exists but not with this HTTP method.',
  },
  url_too_long: {
    status: 414,
    openAiType: 'invalid_request_error',
    anthropicType: 'invalid_request_error',
    exitStatus: 6,
    meaning: "The request line (method, path and query) is longer than the relay's header limit.",
  },
  headers_too_large: {
    status: 431,
    openAiType: 'invalid_request_error',
    anthropicType: 'invalid_request_error',
    exitStatus: 7,
    meaning: "The request's headers are larger than the relay's header limit.",
  },
  request_timeout: {
    status: 408,
    openAiType: 'invalid_request_error',
    anthropicType: 'invalid_request_error',
    exitStatus: 8,
    meaning: 'The client did not send the whole request head in time.',
  },
  unauthorized: {
    status: 401,
    openAiType: 'authentication_error',
    anthropicType: 'authentication_error',
    exitStatus: 10,
    meaning: 'The API key is missing or not one of the keys.',
  },
  insufficient_scope: {
    status: 403,
    openAiType: 'permission_error',
    anthropicType: 'permission_error',
    exitStatus: 11,
    meaning: 'The key is valid but its scope does not allow this (model changes need "admin").',
  },
  host_not_allowed: {
    status: 403,
    openAiType: 'permission_error',
    anthropicType: 'permission_error',
    exitStatus: 12,
    meaning: 'The request named a Host the relay does not answer (DNS rebinding guard).',
  },
  origin_not_allowed: {
    status: 403,
    openAiType: 'permission_error',
    anthropicType: 'permission_error',
    exitStatus: 13,
    meaning: 'A web page from an origin the relay does not allow (CORS) sent the request.',
  },
  model_not_found: {
    status: 404,
    openAiType: 'not_found_error',
    anthropicType: 'not_found_error',
    exitStatus: 20,
    meaning: 'No stored model (or hub repository) has this name.',
  },
  not_found: {
    status: 404,
    openAiType: 'not_found_error',
    anthropicType: 'not_found_error',
    exitStatus: 21,
    meaning: 'The path, stored response, blob or key does not exist.',
  },
  not_implemented: {
    status: 501,
    openAiType: 'server_error',
    anthropicType: 'api_error',
    exitStatus: 22,
    meaning: 'This host does not offer the operation (a router without hub access cannot pull).',
  },
  engine_busy: {
    status: 503,
    openAiType: 'server_error',
    anthropicType: 'overloaded_error',
    exitStatus: 30,
    meaning: 'Every slot is taken and the queue is full: retry after `Retry-After`.',
  },
  no_engine: {
    status: 503,
    openAiType: 'server_error',
    anthropicType: 'overloaded_error',
    exitStatus: 31,
    meaning: 'No engine tab is connected to the relay (or it left mid-answer).',
  },
  engine_timeout: {
    status: 504,
    openAiType: 'server_error',
    anthropicType: 'timeout_error',
    exitStatus: 32,
    meaning: 'The engine (or a cloud app) sent nothing for longer than its timeout.',
  },
  engine_failure: {
    status: 500,
    openAiType: 'server_error',
    anthropicType: 'api_error',
    exitStatus: 33,
    meaning: 'The engine failed while loading or generating.',
  },
  gpu_device_lost: {
    status: 503,
    openAiType: 'server_error',
    anthropicType: 'api_error',
    exitStatus: 36,
    meaning:
      'The GPU device was lost mid-request; the next request reloads the model (on WebGPU if an adapter is back, else on the CPU).',
  },
  relay_unreachable: {
    status: 502,
    openAiType: 'server_error',
    anthropicType: 'api_error',
    exitStatus: 34,
    meaning: 'No lmtab relay answers the CLI, and none could be started.',
  },
  unexpected_response: {
    status: 502,
    openAiType: 'server_error',
    anthropicType: 'api_error',
    exitStatus: 35,
    meaning: 'A server answered without an lmtab error code (not lmtab, or a proxy between).',
  },
  download_failed: {
    status: 502,
    openAiType: 'server_error',
    anthropicType: 'api_error',
    exitStatus: 40,
    meaning: 'The hub refused or broke off a download or a lookup.',
  },
  checksum_mismatch: {
    status: 502,
    openAiType: 'server_error',
    anthropicType: 'api_error',
    exitStatus: 41,
    meaning: 'A downloaded file does not have the digest the hub lists.',
  },
  hub_rate_limited: {
    status: 429,
    openAiType: 'server_error',
    anthropicType: 'rate_limit_error',
    exitStatus: 42,
    meaning: 'The hub is rate-limiting requests: retry after `Retry-After`, or set a hub token.',
  },
  already_downloading: {
    status: 409,
    openAiType: 'invalid_request_error',
    anthropicType: 'invalid_request_error',
    exitStatus: 43,
    meaning: 'The model is already downloading in another tab or request.',
  },
  quota_exceeded: {
    status: 507,
    openAiType: 'server_error',
    anthropicType: 'api_error',
    exitStatus: 50,
    meaning: "The browser's storage quota has no room for the model.",
  },
  model_too_large: {
    status: 507,
    openAiType: 'invalid_request_error',
    anthropicType: 'invalid_request_error',
    exitStatus: 51,
    meaning: 'The model needs more memory than the engine can address or the device has.',
  },
  aborted: {
    status: 499,
    openAiType: 'invalid_request_error',
    anthropicType: 'invalid_request_error',
    exitStatus: 130,
    meaning: 'The client went away or the command was interrupted.',
  },
} as const satisfies Record<string, ErrorRow>;

/** Stable, machine-readable error codes: the keys of {@link errorTable}. */
export type LmtabErrorCode = keyof typeof rows;

/**
 * Every error code with its status, per-protocol types and exit status: the one place they are
 * defined. Protocol encoders, the transports and the CLI read it; a test checks docs/errors.md
 * against it.
 */
export const errorTable: Readonly<Record<LmtabErrorCode, ErrorRow>> = rows;

/** The HTTP response header that carries the code beside bodies with no room for it (`/api`). */
export const errorCodeHeader = 'X-Lmtab-Error-Code';

/** Whether a string that crossed a transport or a wire is one of the codes. */
export function isLmtabErrorCode(code: unknown): code is LmtabErrorCode {
  return typeof code === 'string' && Object.hasOwn(errorTable, code);
}
