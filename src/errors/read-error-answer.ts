import { errorCodeHeader, isLmtabErrorCode } from './error-table.js';
import { LmtabError } from './lmtab-error.js';

/**
 * The error a failed answer's body (or a stream's error event or line) states, in any of lmtab's
 * shapes: OpenAI's `{error: {message, code}}`, native `{error: "...", code?}` and Anthropic's
 * `{type: "error", error: {type, message}}`; undefined when the value is not an error.
 * A code that is not in the error table, or none at all, is `unexpected_response`: the code is
 * read, never guessed from a status or a message.
 */
export function readErrorBody(value: unknown, headerCode?: string | null): LmtabError | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { error } = value as { error?: unknown };
  if (error === undefined || error === null) return undefined;
  const inner =
    typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
  const message =
    typeof error === 'string'
      ? error
      : typeof inner.message === 'string'
        ? inner.message
        : JSON.stringify(error);
  const code = (value as { code?: unknown }).code ?? inner.code ?? headerCode;
  return isLmtabErrorCode(code)
    ? new LmtabError(code, message)
    : new LmtabError('unexpected_response', withoutCode(message, code));
}

/**
 * The error a failed HTTP answer carries: its code from the `X-Lmtab-Error-Code` header or the
 * body, its message from the body (or the body's text, or the status when it says nothing).
 */
export async function readErrorAnswer(response: Response): Promise<LmtabError> {
  const headerCode = response.headers.get(errorCodeHeader);
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: the text itself is the message.
  }
  const stated = readErrorBody(body, headerCode);
  if (stated !== undefined) return stated;
  const message =
    text.trim().slice(0, 500) || `${response.status} ${response.statusText}`.trim() + '.';
  return isLmtabErrorCode(headerCode)
    ? new LmtabError(headerCode, message)
    : new LmtabError('unexpected_response', withoutCode(message, headerCode, response.status));
}

function withoutCode(message: string, code: unknown, status?: number): string {
  const answered = status === undefined ? 'an answer' : `an HTTP ${status} answer`;
  const got = typeof code === 'string' ? `the unknown code ${JSON.stringify(code)}` : 'none';
  return `${message} (expected ${answered} with an lmtab error code, got ${got})`;
}
