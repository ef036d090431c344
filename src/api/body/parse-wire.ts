import type { z } from 'zod';
import '../../zod-jitless.js';
import { LmtabError } from '../../errors/index.js';
import { describeValue } from './describe-value.js';

type Issue = z.core.$ZodIssue;
type RawIssue = z.core.$ZodRawIssue;

const maxReported = 3;

/**
 * Validates a parsed JSON body against a wire schema; on failure throws an `invalid_request`
 * LmtabError whose message names each field path, what was expected and what arrived.
 */
export function parseWire<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  // Schema-level `error` options win over this map, so a schema can word its own expectation.
  const result = schema.safeParse(body, { reportInput: true, error: expectation });
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => locate(issue, []));
  const sentences = problems.slice(0, maxReported).map(sentence);
  if (problems.length > maxReported) {
    sentences.push(`(${problems.length - maxReported} more problems not shown.)`);
  }
  return throwInvalid(sentences.join(' '), problems[0]?.path ?? []);
}

function throwInvalid(message: string, path: readonly PropertyKey[]): never {
  throw new LmtabError('invalid_request', message, {
    param: path.length > 0 ? formatPath(path) : undefined,
  });
}

interface Problem {
  path: PropertyKey[];
  expected: string;
  input: unknown;
  /** A field the schema does not know: lmtab does not implement it. */
  unsupported?: boolean;
}

/** Follows a failed union into the branch whose type matched, so the path points at the fault. */
function locate(issue: Issue, prefix: PropertyKey[]): Problem {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'unrecognized_keys') {
    // Strict schemas (protocols whose every field lmtab either honours or refuses) name the field.
    const key = issue.keys[0] ?? '';
    const input = isRecord(issue.input) ? issue.input[key] : undefined;
    return { path: [...path, key], expected: 'no such field', input, unsupported: true };
  }
  if (issue.code === 'invalid_union') {
    for (const branch of issue.errors) {
      const deeper = branch.find((inner) => inner.path.length > 0);
      if (deeper !== undefined) return locate(deeper, path);
    }
    if (issue.discriminator !== undefined && isRecord(issue.input)) {
      return { path, expected: issue.message, input: issue.input[issue.discriminator] };
    }
  }
  return { path, expected: issue.message, input: issue.input };
}

function sentence(problem: Problem): string {
  const where = problem.path.length > 0 ? `\`${formatPath(problem.path)}\`` : 'request body';
  if (problem.unsupported === true) {
    return `Unsupported field ${where}: lmtab does not implement it (received ${describeValue(problem.input)}); remove it from the request.`;
  }
  if (problem.input === undefined) {
    return `Missing required field ${where}: expected ${problem.expected}.`;
  }
  return `Invalid ${where}: expected ${problem.expected}, received ${describeValue(problem.input)}.`;
}

/** `['messages', 0, 'content']` -> `messages[0].content`. */
function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((key, i) =>
      typeof key === 'number' ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`,
    )
    .join('');
}

/** Words what a failed check expected; used as the issue message. */
function expectation(issue: RawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return typeName(issue.expected === 'number' && isInt(issue) ? 'int' : issue.expected);
    case 'too_small':
      return bound(origin(issue), issue.minimum, issue.inclusive ?? false, issue.exact, 'min');
    case 'too_big':
      return bound(origin(issue), issue.maximum, issue.inclusive ?? false, issue.exact, 'max');
    case 'invalid_value':
      return issue.values.length === 1
        ? JSON.stringify(issue.values[0])
        : `one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_union': {
      const types = issue.errors
        .map((branch) =>
          branch.find((inner) => inner.code === 'invalid_type' && inner.path.length === 0),
        )
        .filter((inner) => inner !== undefined)
        .map((inner) => typeName((inner as z.core.$ZodIssueInvalidType).expected));
      return types.length > 0 ? types.join(' or ') : 'a valid value';
    }
    case 'invalid_format':
      return `a string in ${issue.format} format`;
    default:
      return 'a valid value';
  }
}

/** Whether the failing schema is `z.int()` (zod reports its wrong types as "number"). */
function isInt(issue: RawIssue): boolean {
  const schema: unknown = issue.schema ?? issue.inst;
  return (
    typeof schema === 'object' && schema !== null && 'isInt' in schema && schema.isInt === true
  );
}

function origin(issue: RawIssue & { origin: string }): string {
  return issue.origin === 'number' && isInt(issue) ? 'int' : issue.origin;
}

function typeName(expected: string): string {
  if (expected === 'int') return 'an integer';
  if (expected === 'null' || expected === 'undefined') return expected;
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function bound(
  origin: string,
  limit: number | bigint,
  inclusive: boolean,
  exact: boolean | undefined,
  side: 'min' | 'max',
): string {
  if (origin === 'array' || origin === 'string') {
    const unit = origin === 'array' ? 'item' : 'character';
    const what = origin === 'array' ? 'an array' : 'a string';
    const count = `${limit} ${Number(limit) === 1 ? unit : `${unit}s`}`;
    if (exact === true) return `${what} of exactly ${count}`;
    return `${what} of ${side === 'min' ? 'at least' : 'at most'} ${count}`;
  }
  const noun = origin === 'int' ? 'an integer' : 'a number';
  const op = side === 'min' ? (inclusive ? '>=' : '>') : inclusive ? '<=' : '<';
  return `${noun} ${op} ${limit}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
