import {
  byteAt,
  byteLength,
  formatValue,
  goKind,
  goTypeName,
  isTrue,
  marshalJson,
  sliceBytes,
  sprint,
  sprintf,
} from './go-value.js';

/** What template functions may read besides their arguments. */
export interface FunctionContext {
  /** The clock behind `currentDate` and `yesterdayDate`. */
  now: () => Date;
}

/** A template function: evaluated arguments in, a value out; throws Error with Go's message. */
export type TemplateFunction = (args: unknown[], context: FunctionContext) => unknown;

const arity =
  (name: string, min: number, max: number, fn: TemplateFunction): TemplateFunction =>
  (args, context) => {
    if (args.length < min || args.length > max) {
      const want =
        max === Infinity ? `at least ${min}` : min === max ? `${min}` : `${min} to ${max}`;
      throw new Error(`wrong number of args for ${name}: want ${want} got ${args.length}`);
    }
    return fn(args, context);
  };

// Go's eq: nil equals only nil, basic kinds compare by value, and mixing kinds is an error unless
// one side is nil. JavaScript has one number type, so 1 and 1.0 compare equal here.
function equal(a: unknown, b: unknown): boolean {
  const ka = goKind(a);
  const kb = goKind(b);
  if (ka !== kb) {
    if (ka !== 'nil' && kb !== 'nil') throw new Error('incompatible types for comparison');
    return false;
  }
  if (ka === 'array' || ka === 'map' || ka === 'other') {
    throw new Error(`non-comparable type ${formatValue(a)}: ${goTypeName(a)}`);
  }
  return ka === 'nil' || a === b;
}

function less(a: unknown, b: unknown): boolean {
  const ka = goKind(a);
  const kb = goKind(b);
  if ((ka !== 'number' && ka !== 'string') || (kb !== 'number' && kb !== 'string')) {
    throw new Error('invalid type for comparison');
  }
  if (ka !== kb) throw new Error('incompatible types for comparison');
  return (a as number | string) < (b as number | string);
}

function toIndex(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new Error(`cannot index slice/array with type ${goTypeName(value)}`);
  }
  return value;
}

function index(item: unknown, keys: unknown[]): unknown {
  let value = item;
  for (const key of keys) {
    switch (goKind(value)) {
      case 'nil':
        throw new Error('index of untyped nil');
      case 'map':
        if (typeof key !== 'string') {
          throw new Error(`value has type ${goTypeName(key)}; should be string`);
        }
        value = (value as Record<string, unknown>)[key];
        break;
      case 'array':
      case 'string': {
        const i = toIndex(key);
        const length = Array.isArray(value) ? value.length : byteLength(value as string);
        if (i < 0 || i >= length) throw new Error(`index out of range: ${i}`);
        value = Array.isArray(value) ? value[i] : byteAt(value as string, i);
        break;
      }
      default:
        throw new Error(`can't index item of type ${goTypeName(value)}`);
    }
  }
  return value;
}

function slice(item: unknown, indexes: unknown[]): unknown {
  const kind = goKind(item);
  if (kind === 'nil') throw new Error('slice of untyped nil');
  if (kind !== 'string' && kind !== 'array') {
    throw new Error(`can't slice item of type ${goTypeName(item)}`);
  }
  if (indexes.length > 3) throw new Error(`too many slice indexes: ${indexes.length}`);
  if (kind === 'string' && indexes.length === 3) {
    throw new Error('cannot 3-index slice a string');
  }
  const length = kind === 'string' ? byteLength(item as string) : (item as unknown[]).length;
  const bounds = [0, length];
  indexes.forEach((value, i) => {
    const n = toIndex(value);
    if (n < 0 || n > length) throw new Error(`index out of range: ${n}`);
    if (i < 2) bounds[i] = n;
  });
  const [from = 0, to = length] = bounds;
  const third = indexes[2] as number | undefined;
  if (from > to) throw new Error(`invalid slice index: ${from} > ${to}`);
  if (third !== undefined && to > third) throw new Error(`invalid slice index: ${to} > ${third}`);
  return kind === 'string'
    ? sliceBytes(item as string, from, to)
    : (item as unknown[]).slice(from, to);
}

function length(item: unknown): number {
  switch (goKind(item)) {
    // Ollama's nil lists (Tools, ToolCalls, Images) are typed nil slices of length 0 in Go.
    case 'nil':
      return 0;
    case 'string':
      return byteLength(item as string);
    case 'array':
      return (item as unknown[]).length;
    case 'map':
      return Object.keys(item as object).length;
    default:
      throw new Error(`len of type ${goTypeName(item)}`);
  }
}

const isoDate = (d: Date): string =>
  [d.getFullYear(), d.getMonth() + 1, d.getDate()].map((n) => String(n).padStart(2, '0')).join('-');

/** Go's builtin template functions (but `call`, `html`, `js`, `urlquery`) plus Ollama's four. */
export const templateFunctions: ReadonlyMap<string, TemplateFunction> = new Map<
  string,
  TemplateFunction
>([
  ['and', arity('and', 1, Infinity, (args) => args.find((a) => !isTrue(a)) ?? args.at(-1))],
  ['or', arity('or', 1, Infinity, (args) => args.find((a) => isTrue(a)) ?? args.at(-1))],
  ['not', arity('not', 1, 1, ([a]) => !isTrue(a))],
  [
    'eq',
    arity('eq', 1, Infinity, ([a, ...rest]) => {
      if (rest.length === 0) throw new Error('missing argument for comparison');
      return rest.some((b) => equal(a, b));
    }),
  ],
  ['ne', arity('ne', 2, 2, ([a, b]) => !equal(a, b))],
  ['lt', arity('lt', 2, 2, ([a, b]) => less(a, b))],
  ['le', arity('le', 2, 2, ([a, b]) => less(a, b) || equal(a, b))],
  ['gt', arity('gt', 2, 2, ([a, b]) => !less(a, b) && !equal(a, b))],
  ['ge', arity('ge', 2, 2, ([a, b]) => !less(a, b))],
  ['len', arity('len', 1, 1, ([a]) => length(a))],
  ['index', arity('index', 1, Infinity, ([a, ...keys]) => index(a, keys))],
  ['slice', arity('slice', 1, Infinity, ([a, ...indexes]) => slice(a, indexes))],
  ['print', (args) => sprint(args)],
  ['println', (args) => `${args.map(formatValue).join(' ')}\n`],
  [
    'printf',
    arity('printf', 1, Infinity, ([format, ...args]) => {
      if (typeof format !== 'string') {
        throw new Error(`wrong type for value; expected string; got ${goTypeName(format)}`);
      }
      return sprintf(format, args);
    }),
  ],
  ['json', arity('json', 1, 1, ([a]) => marshalJson(a))],
  ['currentDate', (_args, { now }) => isoDate(now())],
  [
    'yesterdayDate',
    (_args, { now }) => {
      const d = now();
      return isoDate(new Date(d.getFullYear(), d.getMonth(), d.getDate() - 1));
    },
  ],
  // Ollama renders tool parameter types with it; lmtab passes no tools, so its fallback applies.
  ['toTypeScriptType', arity('toTypeScriptType', 1, 1, () => 'any')],
]);
