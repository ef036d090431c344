import { LmtabError } from '../errors/index.js';
import type { LmtabErrorCode } from '../errors/index.js';

/**
 * The DOMException name each of lmtab's codes becomes, as Chrome's Prompt API names its failures
 * (https://webmachinelearning.github.io/prompt-api/#language-model-errors): a prompt over the
 * context is a QuotaExceededError, a request lmtab refuses is a NotSupportedError (as an option or
 * input `create` cannot take is); every other code is an OperationError.
 */
export const promptApiErrorNames: Readonly<Partial<Record<LmtabErrorCode, string>>> = {
  context_length_exceeded: 'QuotaExceededError',
  invalid_request: 'NotSupportedError',
};

/** The name of a code {@link promptApiErrorNames} leaves out. */
const otherName = 'OperationError';

/** Options of {@link promptApiError}. */
export interface PromptApiErrorOptions {
  /** The session's context window in tokens, a QuotaExceededError's `quota`; default null. */
  quota?: number;
}

/** The constructor of the web's QuotaExceededError, where the browser has one. */
type QuotaExceededErrorClass = new (
  message: string,
  options?: { quota?: number; requested?: number },
) => Error;

/**
 * A DOMException of `name` (a plain Error of that name where there is no DOMException), with
 * `cause` kept on it: the LmtabError, so a page can still read lmtab's `code`.
 */
export function domError(name: string, message: string, cause?: unknown): Error {
  const error =
    typeof DOMException === 'function'
      ? new DOMException(message, name)
      : Object.assign(new Error(message), { name });
  if (cause !== undefined) Object.defineProperty(error, 'cause', { value: cause, writable: true });
  return error;
}

/** A QuotaExceededError with its `quota` (null where unknown) and `requested` (unknown: null). */
function quotaExceeded(message: string, cause: LmtabError, quota: number | undefined): Error {
  const known = quota !== undefined && Number.isFinite(quota) ? quota : undefined;
  const native = (globalThis as { QuotaExceededError?: QuotaExceededErrorClass })
    .QuotaExceededError;
  if (typeof native === 'function') {
    const error = new native(message, known === undefined ? {} : { quota: known });
    Object.defineProperty(error, 'cause', { value: cause, writable: true });
    return error;
  }
  // Before the class: a DOMException of the name, with the two fields the class has.
  return Object.assign(domError('QuotaExceededError', message, cause), {
    quota: known ?? null,
    requested: null,
  });
}

/**
 * An lmtab failure (read by `readErrorAnswer`, or thrown by a stream's error event) as the
 * exception the Prompt API throws, named by its code; the message names the code too, and the
 * LmtabError is its `cause`.
 */
export function promptApiError(error: LmtabError, options: PromptApiErrorOptions = {}): Error {
  const name = promptApiErrorNames[error.code] ?? otherName;
  const message = `lmtab answered ${error.code}: ${error.message}`;
  return name === 'QuotaExceededError'
    ? quotaExceeded(message, error, options.quota)
    : domError(name, message, error);
}

/** {@link promptApiError} for an LmtabError; anything else (an abort, a DOMException) as it is. */
export function asPromptApiError(error: unknown, options: PromptApiErrorOptions = {}): unknown {
  return error instanceof LmtabError ? promptApiError(error, options) : error;
}
