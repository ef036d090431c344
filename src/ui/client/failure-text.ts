import { LmtabError } from '../../errors/index.js';

/** A failure as the page shows it: the message, and the code beside it when there is one. */
export interface ShownFailure {
  message: string;
  code?: string;
}

/** The message and code of anything thrown (an LmtabError keeps its code). */
export function shownFailure(error: unknown): ShownFailure {
  if (error instanceof LmtabError) return { message: error.message, code: error.code };
  return { message: error instanceof Error ? error.message : String(error) };
}

/** One line for a failure: `message (code)`, or the message alone when it has no code. */
export function failureLine({ message, code }: ShownFailure): string {
  return code === undefined ? message : `${message} (${code})`;
}

/** One line for anything thrown: {@link failureLine} of its message and code. */
export function failureText(error: unknown): string {
  return failureLine(shownFailure(error));
}
