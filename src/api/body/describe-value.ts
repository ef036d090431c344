const maxQuoted = 60;

/** Says what a JSON value is in words (`the string "abc"`, `the number 2`, `an array of 3 items`). */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') return `the string ${quote(value)}`;
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value === 'boolean') return `the boolean ${value}`;
  if (Array.isArray(value)) {
    return `an array of ${value.length} ${value.length === 1 ? 'item' : 'items'}`;
  }
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** JSON-quotes a string, shortened to a readable length. */
export function quote(text: string): string {
  return JSON.stringify(text.length > maxQuoted ? `${text.slice(0, maxQuoted)}…` : text);
}
