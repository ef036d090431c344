// Go semantics for the JavaScript values a template sees: undefined and null are Go's nil, plain
// objects are maps, arrays are slices, integral numbers are ints and other numbers float64s.

/** The Go kind a JavaScript value stands for. */
export type GoKind = 'nil' | 'bool' | 'number' | 'string' | 'array' | 'map' | 'other';

/** The Go kind of a value. */
export function goKind(value: unknown): GoKind {
  if (value === undefined || value === null) return 'nil';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'string') return 'string';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'map' : 'other';
}

/** Whether a value is a plain object, i.e. a Go map with string keys. */
export function isMap(value: unknown): value is Record<string, unknown> {
  return goKind(value) === 'map';
}

/** Go truthiness: false, 0, nil, and empty strings, lists and maps are false. */
export function isTrue(value: unknown): boolean {
  switch (goKind(value)) {
    case 'nil':
      return false;
    case 'bool':
      return value === true;
    case 'number':
      return value !== 0;
    case 'string':
    case 'array':
      return (value as string | unknown[]).length > 0;
    case 'map':
      return Object.keys(value as object).length > 0;
    default:
      return true;
  }
}

/** The Go type name used in error messages, e.g. `string`, `int`, `[]interface {}`. */
export function goTypeName(value: unknown): string {
  switch (goKind(value)) {
    case 'nil':
      return '<nil>';
    case 'number':
      return Number.isInteger(value) ? 'int' : 'float64';
    case 'array':
      return '[]interface {}';
    case 'map':
      return 'map[string]interface {}';
    case 'other':
      return typeof value;
    default:
      return goKind(value);
  }
}

/** Go's `%v` of a number: ints in decimal, floats in shortest `%g` form (`1e+06`, `0.5`). */
export function formatNumber(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return n.toFixed(0);
  const [mantissa = '0', exponent = '0'] = n.toExponential().split('e');
  const exp = Number(exponent);
  if (exp < -4 || exp >= 21 || (!Number.isInteger(n) && exp >= 6)) {
    return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(n);
}

/** fmt.Sprint's text for one value (`<nil>` for nil, `[a b]` for lists, `map[k:v]` for maps). */
export function formatValue(value: unknown): string {
  switch (goKind(value)) {
    case 'nil':
      return '<nil>';
    case 'string':
      return value as string;
    case 'number':
      return formatNumber(value as number);
    case 'array':
      return `[${(value as unknown[]).map(formatValue).join(' ')}]`;
    case 'map': {
      const map = value as Record<string, unknown>;
      const entries = Object.keys(map)
        .sort()
        .map((key) => `${key}:${formatValue(map[key])}`);
      return `map[${entries.join(' ')}]`;
    }
    default:
      return String(value);
  }
}

/** fmt.Sprint: spaces go between operands when neither is a string. */
export function sprint(args: readonly unknown[]): string {
  return args
    .map((arg, i) => {
      const spaced = i > 0 && typeof arg !== 'string' && typeof args[i - 1] !== 'string';
      return (spaced ? ' ' : '') + formatValue(arg);
    })
    .join('');
}

/** strconv.Quote, for printable text: escapes quotes, backslashes and control characters. */
export function quoteGo(s: string): string {
  const named: Record<string, string> = {
    '\x07': '\\a',
    '\b': '\\b',
    '\f': '\\f',
    '\n': '\\n',
    '\r': '\\r',
    '\t': '\\t',
    '\v': '\\v',
    '"': '\\"',
    '\\': '\\\\',
  };
  let out = '"';
  for (const c of s) {
    const code = c.codePointAt(0) ?? 0;
    out +=
      named[c] ?? (code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, '0')}` : c);
  }
  return `${out}"`;
}

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** Go's `len` of a string: its UTF-8 byte count. */
export function byteLength(s: string): number {
  return utf8Encoder.encode(s).length;
}

/** Go's `s[from:to]` on a string: by UTF-8 bytes. */
export function sliceBytes(s: string, from: number, to: number): string {
  return utf8Decoder.decode(utf8Encoder.encode(s).slice(from, to));
}

/** Go's `s[i]` on a string: the UTF-8 byte at index i. */
export function byteAt(s: string, i: number): number | undefined {
  return utf8Encoder.encode(s)[i];
}

/** encoding/json's Marshal: sorted map keys, `<`, `>`, `&` escaped for HTML. */
export function marshalJson(value: unknown): string {
  const sortKeys = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sortKeys);
    if (!isMap(v)) return v ?? null;
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((key) => [key, sortKeys(v[key])]),
    );
  };
  return (JSON.stringify(sortKeys(value)) ?? 'null').replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * Whether fmt's `parsenum` gives up on a width or precision: it stops once the number read so far
 * passes 1e6 and another digit follows, so no directive can ask for a 100-megabyte padding.
 */
function tooLarge(digits: string | undefined): boolean {
  let num = 0;
  for (const digit of digits ?? '') {
    if (num > 1e6) return true;
    num = num * 10 + Number(digit);
  }
  return false;
}

const directive = /%([-+# 0]*)(\d+)?(?:\.(\d*))?([a-zA-Z%])/g;

/** fmt.Sprintf for the verbs %v %s %d %q %t %f %e %g %x %%, with flags, width and precision. */
export function sprintf(format: string, args: readonly unknown[]): string {
  // As fmt does, a width or precision too large to parse ends the format with %!(NOVERB).
  const overflow = [...format.matchAll(directive)].find(
    (match) => tooLarge(match[2]) || tooLarge(match[3]),
  );
  const parsed = overflow === undefined ? format : format.slice(0, overflow.index);
  let next = 0;
  const formatted = parsed.replace(
    directive,
    (_m, flags: string, width?: string, precision?: string, verb = 'v') => {
      if (verb === '%') return '%';
      if (next >= args.length) return `%!${verb}(MISSING)`;
      const arg = args[next++];
      const text = formatVerb(verb, arg, precision === undefined ? undefined : Number(precision));
      const size = width === undefined ? 0 : Number(width);
      if (text.length >= size) return text;
      if (flags.includes('-')) return text.padEnd(size);
      const zero = flags.includes('0') && goKind(arg) === 'number';
      if (!zero) return text.padStart(size);
      const sign = /^[+-]/.test(text) ? (text[0] ?? '') : '';
      return sign + text.slice(sign.length).padStart(size - sign.length, '0');
    },
  );
  const out = overflow === undefined ? formatted : `${formatted}%!(NOVERB)`;
  if (next >= args.length) return out;
  const extra = args.slice(next).map((arg) => `${goTypeName(arg)}=${formatValue(arg)}`);
  return `${out}%!(EXTRA ${extra.join(', ')})`;
}

// Like fmt, a verb that does not fit its argument prints inline (`%!d(string=x)`) rather than failing.
function formatVerb(verb: string, arg: unknown, precision: number | undefined): string {
  const kind = goKind(arg);
  const bad = (): string =>
    kind === 'nil' ? `%!${verb}(<nil>)` : `%!${verb}(${goTypeName(arg)}=${formatValue(arg)})`;
  const n = arg as number;
  switch (verb) {
    case 'v':
      return formatValue(arg);
    case 's': {
      if (kind === 'nil' || kind === 'bool' || kind === 'number') return bad();
      const text = formatValue(arg);
      return precision === undefined ? text : [...text].slice(0, precision).join('');
    }
    case 'q':
      return kind === 'string' ? quoteGo(arg as string) : bad();
    case 't':
      return kind === 'bool' ? String(arg) : bad();
    case 'd':
      return kind === 'number' && Number.isInteger(n) ? n.toFixed(0) : bad();
    case 'x':
      if (kind === 'number' && Number.isInteger(n)) return n.toString(16);
      if (kind !== 'string') return bad();
      return [...utf8Encoder.encode(arg as string)]
        .map((b) => b.toString(16).padStart(2, '0'))
        .join('');
    case 'f':
    case 'F':
      return kind === 'number' ? n.toFixed(precision ?? 6) : bad();
    case 'e': {
      if (kind !== 'number') return bad();
      const [mantissa, exp = '0'] = n.toExponential(precision ?? 6).split('e');
      const e = Number(exp);
      return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
    }
    case 'g':
      return kind === 'number' ? formatNumber(n) : bad();
    default:
      return bad();
  }
}
