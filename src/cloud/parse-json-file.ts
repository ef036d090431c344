import { LmtabError } from '../errors/index.js';

/** Parses a config file's text; throws `invalid_request` naming what was expected (e.g. "the key file keys.json"). */
export function parseJsonFile(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new LmtabError(
      'invalid_request',
      `Expected JSON in ${what}, got: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
