import type { TemplateSource } from './go-template-source.js';

/** Kinds of tokens the lexer produces, after Go's text/template/parse lexer. */
export type TokenType =
  | 'text'
  | 'leftDelim'
  | 'rightDelim'
  | 'space'
  | 'field'
  | 'identifier'
  | 'variable'
  | 'dot'
  | 'bool'
  | 'number'
  | 'char'
  | 'string'
  | 'assign'
  | 'declare'
  | 'pipe'
  | 'leftParen'
  | 'rightParen'
  | 'keyword'
  | 'eof';

/** One token: its kind, offset in the source and text (strings are already unquoted). */
export interface Token {
  type: TokenType;
  pos: number;
  value: string;
}

const keywords = new Set([
  'block',
  'break',
  'continue',
  'define',
  'else',
  'end',
  'if',
  'nil',
  'range',
  'template',
  'with',
]);

const isSpace = (c: string | undefined): boolean =>
  c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isAlphaNumeric = (c: string | undefined): boolean =>
  c !== undefined && /^[\p{L}\p{Nd}_]$/u.test(c);
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** Splits template text into tokens, applying `{{-`/`-}}` trimming and dropping comments. */
export function lexTemplate(source: TemplateSource): Token[] {
  const text = source.text;
  const tokens: Token[] = [];
  const fail = (pos: number, message: string): never => {
    throw source.error(pos, message);
  };
  // Go requires a space after `{{-` and before `-}}`, so `{{-3}}` stays the number -3.
  const hasLeftTrim = (p: number): boolean => text[p] === '-' && isSpace(text[p + 1]);
  const rightDelimAt = (p: number): { end: number; trim: boolean } | undefined => {
    if (isSpace(text[p]) && text[p + 1] === '-' && text.startsWith('}}', p + 2)) {
      return { end: p + 4, trim: true };
    }
    return text.startsWith('}}', p) ? { end: p + 2, trim: false } : undefined;
  };
  const skipSpaces = (p: number): number => {
    while (isSpace(text[p])) p++;
    return p;
  };
  // What may follow a name: Go splits `.A.B` into two fields and rejects `$x+2` here.
  const atTerminator = (p: number): boolean => {
    const c = text[p];
    return c === undefined || isSpace(c) || '.,|:()}'.includes(c);
  };
  const badCharacter = (p: number): never =>
    fail(
      p,
      `bad character ${describeChar(text[p] ?? '')}; expected a space, ".", "|", ")" or "}}"`,
    );

  // The whole text is lexed up front (Go lexes lazily), so a lexical error anywhere wins over a
  // parse error earlier in the text; messages differ from Go's only in that order.
  let pos = 0;
  for (;;) {
    const open = text.indexOf('{{', pos);
    if (open < 0) {
      if (pos < text.length) tokens.push({ type: 'text', pos, value: text.slice(pos) });
      tokens.push({ type: 'eof', pos: text.length, value: '' });
      return tokens;
    }
    let end = open;
    if (hasLeftTrim(open + 2)) while (end > pos && isSpace(text[end - 1])) end--;
    if (end > pos) tokens.push({ type: 'text', pos, value: text.slice(pos, end) });
    pos = lexAction(open);
  }

  // Scans one action from its `{{`; returns where the following text starts. Since Go 1.16 an
  // action may span lines, so newlines inside are ordinary spaces.
  function lexAction(open: number): number {
    const afterMarker = hasLeftTrim(open + 2) ? open + 4 : open + 2;
    if (text.startsWith('/*', afterMarker)) {
      const close = text.indexOf('*/', afterMarker + 2);
      if (close < 0) fail(open, 'unclosed comment; expected "*/}}"');
      const delim = rightDelimAt(close + 2);
      if (delim === undefined) {
        return fail(
          close + 2,
          'comment ends before closing delimiter; expected "}}" right after "*/"',
        );
      }
      return delim.trim ? skipSpaces(delim.end) : delim.end;
    }
    tokens.push({ type: 'leftDelim', pos: open, value: '{{' });
    let p = afterMarker;
    let parenDepth = 0;
    const push = (type: TokenType, start: number, value = text.slice(start, p)): void => {
      tokens.push({ type, pos: start, value });
    };
    for (;;) {
      const delim = rightDelimAt(p);
      if (delim !== undefined) {
        if (parenDepth > 0) fail(p, 'unclosed left paren; expected ")" before "}}"');
        tokens.push({ type: 'rightDelim', pos: p, value: '}}' });
        return delim.trim ? skipSpaces(delim.end) : delim.end;
      }
      const start = p;
      const c = text[p];
      if (c === undefined) return fail(open, 'unclosed action; expected "}}"');
      if (isSpace(c)) {
        // Stop before a space that starts " -}}", which belongs to the delimiter.
        do p++;
        while (isSpace(text[p]) && rightDelimAt(p)?.trim !== true);
        push('space', start);
      } else if (c === '=') {
        p++;
        push('assign', start);
      } else if (c === ':') {
        if (text[p + 1] !== '=') fail(p, 'expected ":="');
        p += 2;
        push('declare', start);
      } else if (c === '|') {
        p++;
        push('pipe', start);
      } else if (c === '"') {
        p = scanQuoted(p, '"', 'unterminated quoted string');
        push(
          'string',
          start,
          unquoteGo(text.slice(start, p), (msg) => fail(start, msg)),
        );
      } else if (c === '`') {
        const close = text.indexOf('`', p + 1);
        if (close < 0) fail(p, 'unterminated raw quoted string; expected a closing "`"');
        p = close + 1;
        // Go drops carriage returns from raw strings.
        push('string', start, text.slice(start + 1, close).replaceAll('\r', ''));
      } else if (c === "'") {
        p = scanQuoted(p, "'", 'unterminated character constant');
        push('char', start);
      } else if (c === '$' || (c === '.' && !isDigit(text[p + 1]))) {
        // `.5` is a number; `.` alone is dot; `$` alone is the data passed to render.
        p++;
        while (isAlphaNumeric(text[p])) p++;
        if (!atTerminator(p)) badCharacter(p);
        if (c === '$') push('variable', start);
        else push(p === start + 1 ? 'dot' : 'field', start);
      } else if (c === '.' || c === '+' || c === '-' || isDigit(c)) {
        p = scanNumber(p);
        push('number', start);
      } else if (isAlphaNumeric(c)) {
        while (isAlphaNumeric(text[p])) p++;
        if (!atTerminator(p)) badCharacter(p);
        const word = text.slice(start, p);
        if (keywords.has(word)) push('keyword', start);
        else push(word === 'true' || word === 'false' ? 'bool' : 'identifier', start);
      } else if (c === '(') {
        p++;
        parenDepth++;
        push('leftParen', start);
      } else if (c === ')') {
        if (parenDepth === 0) fail(p, 'unexpected ")"; no "(" is open');
        p++;
        parenDepth--;
        push('rightParen', start);
      } else if (c >= ' ' && c <= '~') {
        p++;
        push('char', start);
      } else {
        fail(p, `unrecognized character in action: ${describeChar(c)}`);
      }
    }
  }

  function scanQuoted(p: number, quote: string, unterminated: string): number {
    for (p++; ; p++) {
      const c = text[p];
      if (c === '\\') {
        p++;
        if (text[p] === undefined || text[p] === '\n') break;
      } else if (c === undefined || c === '\n') {
        break;
      } else if (c === quote) {
        return p + 1;
      }
    }
    return fail(p, `${unterminated}; expected a closing ${quote} on the same line`);
  }

  // Go's number syntax (sign, 0x/0o/0b, underscores, fraction, exponent); the parser checks the
  // value, the lexer only where the number ends.
  function scanNumber(p: number): number {
    const start = p;
    if (text[p] === '+' || text[p] === '-') p++;
    let digits = /[0-9_]/;
    let exponent = /[eE]/;
    if (text[p] === '0' && /[xXoObB]/.test(text[p + 1] ?? '')) {
      const base = (text[p + 1] ?? '').toLowerCase();
      digits = base === 'x' ? /[0-9a-fA-F_]/ : base === 'o' ? /[0-7_]/ : /[01_]/;
      exponent = base === 'x' ? /[pP]/ : /(?!)/;
      p += 2;
    }
    while (digits.test(text[p] ?? '')) p++;
    if (text[p] === '.') for (p++; digits.test(text[p] ?? '');) p++;
    if (exponent.test(text[p] ?? '')) {
      p++;
      if (text[p] === '+' || text[p] === '-') p++;
      while (isDigit(text[p])) p++;
    }
    if (isAlphaNumeric(text[p]) || text[p] === '+' || text[p] === '-') {
      while (isAlphaNumeric(text[p]) || text[p] === '+' || text[p] === '-') p++;
      fail(start, `bad number syntax: "${text.slice(start, p)}"`);
    }
    return p;
  }
}

function describeChar(c: string): string {
  const code = (c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
  return `U+${code} ${JSON.stringify(c)}`;
}

const simpleEscapes: Record<string, string> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
};

/** Unquotes a Go double- or single-quoted literal (quotes included), as strconv.Unquote does. */
export function unquoteGo(literal: string, fail: (message: string) => never): string {
  const quote = literal[0] ?? '"';
  const body = literal.slice(1, -1);
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i] ?? '';
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i] ?? '';
    const escape = simpleEscapes[e];
    if (escape !== undefined || e === quote) {
      out += escape ?? e;
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const width = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = body.slice(i + 1, i + 1 + width);
      if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex)) fail(`invalid escape "\\${e}${hex}"`);
      const code = parseInt(hex, 16);
      if (code > 0x10ffff) fail(`invalid escape "\\${e}${hex}"`);
      out += String.fromCodePoint(code);
      i += width;
    } else if (/[0-7]/.test(e)) {
      const octal = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(octal)) fail(`invalid escape "\\${octal}"`);
      out += String.fromCodePoint(parseInt(octal, 8));
      i += 2;
    } else {
      fail(`invalid escape "\\${e}" in ${quote}${body}${quote}`);
    }
  }
  return out;
}
