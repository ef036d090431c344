import { LmtabError } from '../errors/index.js';

// The hub's own rule: letters, digits, '-', '_' and '.', at most 96 characters, no '--' or '..',
// and neither '-' nor '.' at either end.
const segment = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,94}[A-Za-z0-9_])?$/;

/** Whether `text` is a hub repository id `ORG/REPO`. */
export function isRepoId(text: string): boolean {
  const parts = text.split('/');
  return (
    parts.length === 2 &&
    parts.every((part) => segment.test(part) && !part.includes('--') && !part.includes('..'))
  );
}

/** Throws `invalid_request` unless `repo` is a hub repository id `ORG/REPO`. */
export function assertRepoId(repo: string): void {
  if (!isRepoId(repo)) {
    throw new LmtabError(
      'invalid_request',
      `Expected a hub repository id like ORG/REPO (letters, digits, '-', '_', '.'), got ${JSON.stringify(repo)}.`,
      { param: 'model' },
    );
  }
}
