import type { z } from 'zod';

/**
 * The `error` option of a strict wire object: an unknown field is named with the fields the
 * endpoint knows, since lmtab refuses a field it cannot honour instead of dropping it.
 */
export function unknownFieldsError(known: readonly string[]) {
  return (issue: z.core.$ZodRawIssue): string | undefined =>
    issue.code === 'unrecognized_keys'
      ? `only the fields ${known.join(', ')} (unknown: ${issue.keys.join(', ')})`
      : undefined;
}
