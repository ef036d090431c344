export { errorCodeHeader, errorTable, isLmtabErrorCode } from './error-table.js';
export type { ErrorRow, LmtabErrorCode } from './error-table.js';
export { LmtabError, toLmtabError } from './lmtab-error.js';
export type { LmtabErrorOptions } from './lmtab-error.js';
export { readErrorAnswer, readErrorBody } from './read-error-answer.js';
