import { LmtabError } from '../../errors/index.js';
import { quote } from '../body/describe-value.js';

/** Longest part of a name, as Ollama limits them: host 350 characters, the others 80. */
const hostLimit = 350;
const partLimit = 80;

/** Ollama's part rule: a letter, digit or `_` first, then those, `-` and `.` (`:` in a host). */
function validPart(part: string, kind: 'host' | 'namespace' | 'model' | 'tag'): string | undefined {
  const limit = kind === 'host' ? hostLimit : partLimit;
  if (part.length === 0) return `its ${kind} is empty`;
  if (part.length > limit) return `its ${kind} has ${part.length} characters, more than ${limit}`;
  if (!/^[A-Za-z0-9_]/.test(part)) return `its ${kind} must start with a letter, digit or _`;
  const allowed =
    kind === 'host' ? /^[A-Za-z0-9_.:-]+$/ : kind === 'namespace' ? /^[\w-]+$/ : /^[\w.-]+$/;
  if (!allowed.test(part)) {
    return `its ${kind} may hold only letters, digits, _ and -${kind === 'namespace' ? '' : ' and .'}`;
  }
  return undefined;
}

/**
 * Checks a model name by Ollama's rules: `[host/][namespace/]model[:tag]`, each part starting
 * with a letter, digit or `_` and holding letters, digits, `_`, `-` and `.` (no `.` in a
 * namespace, a port in a host), the host at most 350 characters and the others 80. An
 * `https://` prefix (a hub URL) is allowed. Throws `invalid_request` (400) naming `param`, so that
 * paths (`../../etc/passwd`) and huge names are refused before they reach the store or a message.
 */
export function checkModelName(name: string, param: string): string {
  const fail = (why: string): never => {
    throw new LmtabError(
      'invalid_request',
      `Invalid \`${param}\`: expected a model name such as "mario", "mario:7b" or ` +
        `"hf.co/ORG/REPO:Q4_K_M", received ${quote(name)} (${why}).`,
      { param },
    );
  };
  if (name.length > hostLimit + 3 * (partLimit + 1)) {
    fail(`${name.length} characters, more than a name can hold`);
  }
  const bare = name.replace(/^https?:\/\//i, '');
  const slash = bare.lastIndexOf('/');
  const colon = bare.lastIndexOf(':');
  const tag = colon > slash ? bare.slice(colon + 1) : undefined;
  const path = (tag === undefined ? bare : bare.slice(0, colon)).split('/');
  if (path.length > 3) fail('it has more than three parts: expected [host/][namespace/]model');
  const kinds = (['host', 'namespace', 'model'] as const).slice(3 - path.length);
  for (const [index, part] of path.entries()) {
    const why = validPart(part, kinds[index]);
    if (why !== undefined) fail(why);
  }
  if (tag !== undefined) {
    const why = validPart(tag, 'tag');
    if (why !== undefined) fail(why);
  }
  return name;
}
