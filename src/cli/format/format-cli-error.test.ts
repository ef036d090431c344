import { describe, expect, it } from 'vitest';
import { LmtabError, errorTable } from '../../errors/index.js';
import type { LmtabErrorCode } from '../../errors/index.js';
import { cliExitStatus, formatCliError } from './format-cli-error.js';

describe('formatCliError and cliExitStatus', () => {
  it.each(Object.keys(errorTable) as LmtabErrorCode[])(
    'print %s and exit with its status',
    (code) => {
      const error = new LmtabError(code, 'Expected x, got y.');
      expect(formatCliError(error)).toBe(`Error (${code}): Expected x, got y.\n`);
      expect(cliExitStatus(error)).toBe(errorTable[code].exitStatus);
    },
  );

  it('print a failure without a code as Error: and exit 1', () => {
    expect(formatCliError(new Error('a bug'))).toBe('Error: a bug\n');
    expect(cliExitStatus(new Error('a bug'))).toBe(1);
  });
});
