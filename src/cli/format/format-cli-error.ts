import { LmtabError, errorTable } from '../../errors/index.js';

/** The exit status of a command that failed without an lmtab error code (a bug, a usage error). */
export const genericExitStatus = 1;

/** One line for a failure: `Error (code): message`, or `Error: message` when it has no code. */
export function formatCliError(error: unknown): string {
  if (error instanceof LmtabError) return `Error (${error.code}): ${error.message}\n`;
  return `Error: ${error instanceof Error ? error.message : String(error)}\n`;
}

/** The exit status scripts branch on: the code's row of the error table, else 1. */
export function cliExitStatus(error: unknown): number {
  return error instanceof LmtabError ? errorTable[error.code].exitStatus : genericExitStatus;
}
