export { LmtabError, toLmtabError } from './lmtab-error.js';
export type { LmtabErrorCode, LmtabErrorOptions } from './lmtab-error.js';
