/** An inline piece of a markdown block. */
export type MarkdownInline =
  | { type: 'text'; text: string }
  | { type: 'strong' | 'em' | 'del'; children: MarkdownInline[] }
  | { type: 'code'; text: string }
  | {
      type: 'link';
      /** An `http:`, `https:` or `mailto:` URL; other schemes never become links. */
      href: string;
      children: MarkdownInline[];
    }
  | { type: 'break' };

/** Alignment of a table column. */
export type MarkdownAlign = 'left' | 'center' | 'right' | null;

/** A block of a markdown document. */
export type MarkdownBlock =
  | { type: 'paragraph'; children: MarkdownInline[] }
  | { type: 'heading'; level: number; children: MarkdownInline[] }
  | {
      type: 'code';
      /** The fence's info word, e.g. `ts`; empty when none. */
      language: string;
      text: string;
      /** False while a streamed answer has not closed the fence yet. */
      closed: boolean;
    }
  | {
      type: 'list';
      ordered: boolean;
      /** Number of the first item of an ordered list. */
      start: number;
      items: MarkdownBlock[][];
    }
  | { type: 'blockquote'; children: MarkdownBlock[] }
  | { type: 'rule' }
  | {
      type: 'table';
      header: MarkdownInline[][];
      align: MarkdownAlign[];
      rows: MarkdownInline[][][];
    };

/**
 * Deepest nesting of block quotes, lists, emphasis and links the parser builds (and the view
 * renders recursively); what lies deeper stays plain text. A model or a model card can write
 * `>` or `*` 100,000 times, which would otherwise overflow the stack.
 */
export const maxMarkdownNesting = 32;

const fencePattern = /^ {0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$/;
const headingPattern = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const rulePattern = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const quotePattern = /^ {0,3}> ?(.*)$/;
const listPattern = /^( *)([-*+]|\d{1,9}[.)])([ \t]+(.*))?$/;
const delimiterRowPattern = /^ *\|? *:?-+:? *(\| *:?-+:? *)*\|? *$/;

const indentOf = (line: string) => /^ */.exec(line)![0].length;
const isBlank = (line: string) => line.trim() === '';

/** Whether a line starts a block other than a paragraph (so it ends a paragraph). */
function startsBlock(line: string): boolean {
  return (
    fencePattern.test(line) ||
    headingPattern.test(line) ||
    rulePattern.test(line) ||
    quotePattern.test(line) ||
    (listPattern.test(line) && !isBlank(line.replace(listPattern, '$4')))
  );
}

function splitCells(row: string): string[] {
  let text = row.trim();
  if (text.startsWith('|')) text = text.slice(1);
  if (text.endsWith('|') && !text.endsWith('\\|')) text = text.slice(0, -1);
  const cells: string[] = [];
  let cell = '';
  for (let i = 0; i < text.length; i += 1) {
    if (text[i] === '\\' && text[i + 1] === '|') {
      cell += '|';
      i += 1;
    } else if (text[i] === '|') {
      cells.push(cell.trim());
      cell = '';
    } else cell += text[i];
  }
  cells.push(cell.trim());
  return cells;
}

function alignOf(cell: string): MarkdownAlign {
  const left = cell.startsWith(':');
  const right = cell.endsWith(':');
  if (left && right) return 'center';
  if (right) return 'right';
  return left ? 'left' : null;
}

function parseLines(lines: string[], depth: number): MarkdownBlock[] {
  if (depth >= maxMarkdownNesting) {
    return [{ type: 'paragraph', children: [{ type: 'text', text: lines.join('\n') }] }];
  }
  const blocks: MarkdownBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (isBlank(line)) {
      i += 1;
      continue;
    }
    const fence = fencePattern.exec(line);
    if (fence) {
      const marker = fence[1]!;
      const indent = indentOf(line);
      const body: string[] = [];
      let closed = false;
      i += 1;
      while (i < lines.length) {
        const current = lines[i]!;
        const trimmed = current.trim();
        if (
          trimmed.startsWith(marker) &&
          new RegExp(`^\\${marker[0]}+$`).test(trimmed) &&
          indentOf(current) < 4
        ) {
          closed = true;
          i += 1;
          break;
        }
        body.push(current.slice(Math.min(indent, indentOf(current))));
        i += 1;
      }
      blocks.push({ type: 'code', language: fence[2] ?? '', text: body.join('\n'), closed });
      continue;
    }
    const heading = headingPattern.exec(line);
    if (heading) {
      blocks.push({
        type: 'heading',
        level: heading[1]!.length,
        children: parseInline(heading[2] ?? '', depth),
      });
      i += 1;
      continue;
    }
    if (rulePattern.test(line)) {
      blocks.push({ type: 'rule' });
      i += 1;
      continue;
    }
    if (quotePattern.test(line)) {
      const body: string[] = [];
      while (i < lines.length && !isBlank(lines[i]!)) {
        const quoted = quotePattern.exec(lines[i]!);
        // A line without `>` continues the quote's paragraph (lazy continuation).
        body.push(quoted ? quoted[1]! : lines[i]!);
        i += 1;
      }
      blocks.push({ type: 'blockquote', children: parseLines(body, depth + 1) });
      continue;
    }
    const list = listPattern.exec(line);
    if (list) {
      i = parseList(lines, i, blocks, depth);
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && delimiterRowPattern.test(lines[i + 1]!)) {
      const header = splitCells(line);
      const delimiters = splitCells(lines[i + 1]!);
      if (delimiters.length === header.length) {
        i += 2;
        const rows: MarkdownInline[][][] = [];
        while (i < lines.length && !isBlank(lines[i]!) && lines[i]!.includes('|')) {
          const cells = splitCells(lines[i]!);
          rows.push(header.map((_, column) => parseInline(cells[column] ?? '', depth)));
          i += 1;
        }
        blocks.push({
          type: 'table',
          header: header.map((cell) => parseInline(cell, depth)),
          align: delimiters.map(alignOf),
          rows,
        });
        continue;
      }
    }
    const paragraph: string[] = [line.trim()];
    i += 1;
    while (i < lines.length && !isBlank(lines[i]!) && !startsBlock(lines[i]!)) {
      paragraph.push(lines[i]!.trim());
      i += 1;
    }
    blocks.push({ type: 'paragraph', children: parseInline(paragraph.join('\n'), depth) });
  }
  return blocks;
}

/** Parses the list starting at `lines[start]` into `blocks`; returns the index after it. */
function parseList(lines: string[], start: number, blocks: MarkdownBlock[], depth: number): number {
  const first = listPattern.exec(lines[start]!)!;
  const baseIndent = first[1]!.length;
  const ordered = /\d/.test(first[2]!);
  const kind = ordered ? first[2]!.slice(-1) : first[2]!;
  const items: MarkdownBlock[][] = [];
  let i = start;
  while (i < lines.length) {
    const marker = listPattern.exec(lines[i]!);
    if (!marker || marker[1]!.length !== baseIndent) break;
    const markerKind = /\d/.test(marker[2]!) ? marker[2]!.slice(-1) : marker[2]!;
    if (markerKind !== kind) break;
    const contentIndent = baseIndent + marker[2]!.length + Math.min((marker[3] ?? ' ').length, 4);
    const body: string[] = [marker[4] ?? ''];
    i += 1;
    while (i < lines.length) {
      const current = lines[i]!;
      if (isBlank(current)) {
        // A blank line continues the item only when indented content follows it.
        let next = i + 1;
        while (next < lines.length && isBlank(lines[next]!)) next += 1;
        if (next < lines.length && indentOf(lines[next]!) > baseIndent) {
          body.push('');
          i += 1;
          continue;
        }
        break;
      }
      const indent = indentOf(current);
      if (indent > baseIndent) {
        body.push(current.slice(Math.min(indent, contentIndent)));
      } else if (!startsBlock(current) && !isBlank(body[body.length - 1] ?? '')) {
        body.push(current.trim());
      } else break;
      i += 1;
    }
    items.push(parseLines(body, depth + 1));
    // Blank lines between sibling items do not end the list.
    let next = i;
    while (next < lines.length && isBlank(lines[next]!)) next += 1;
    const sibling = next < lines.length ? listPattern.exec(lines[next]!) : null;
    if (sibling && sibling[1]!.length === baseIndent) i = next;
  }
  blocks.push({
    type: 'list',
    ordered,
    start: ordered ? Number.parseInt(first[2]!, 10) : 1,
    items,
  });
  return i;
}

const punctuation = /[!-/:-@[-`{-~]/;
const bareUrlPattern = /^https?:\/\/[^\s<]*[^\s<.,:;"')\]!?*_~]/i;

/** The URL, when it is one a chat answer may link to. */
function safeHref(url: string): string | undefined {
  const trimmed = url.trim().replace(/^<|>$/g, '');
  return /^(https?:\/\/|mailto:)/i.test(trimmed) ? trimmed : undefined;
}

function isWordChar(char: string | undefined): boolean {
  return char !== undefined && /[\p{L}\p{N}]/u.test(char);
}

/** Index of the `]` closing the `[` at `open`, skipping nested brackets and code; -1 if none. */
function closingBracket(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i += 1) {
    const char = text[i];
    if (char === '\\') i += 1;
    else if (char === '`') {
      const run = /^`+/.exec(text.slice(i))![0];
      const end = text.indexOf(run, i + run.length);
      if (end >= 0) i = end + run.length - 1;
    } else if (char === '[') depth += 1;
    else if (char === ']') {
      depth -= 1;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** Index of the `)` closing the `(` at `open`, allowing balanced parentheses; -1 if none. */
function closingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i += 1) {
    if (text[i] === '\\') i += 1;
    else if (text[i] === '(') depth += 1;
    else if (text[i] === ')') {
      depth -= 1;
      if (depth === 0) return i;
    } else if (text[i] === '\n') return -1;
  }
  return -1;
}

/** Index where `delimiter` closes emphasis whose content starts at `from`, or -1. */
function closingDelimiter(text: string, from: number, delimiter: string): number {
  const mark = delimiter[0]!;
  for (let i = from; i < text.length; i += 1) {
    const char = text[i]!;
    if (char === '\\') {
      i += 1;
      continue;
    }
    if (char === '`') {
      const run = /^`+/.exec(text.slice(i))![0];
      const end = text.indexOf(run, i + run.length);
      if (end >= 0) i = end + run.length - 1;
      continue;
    }
    if (char !== mark) continue;
    let run = 1;
    while (text[i + run] === mark) run += 1;
    // The closer is the end of a run: `***` closes `**` around an inner `*...*`.
    const at = i + run - delimiter.length;
    const fits = run >= delimiter.length && !(delimiter.length === 1 && run === 2);
    if (
      fits &&
      at > from &&
      !/\s/.test(text[at - 1]!) &&
      !(mark === '_' && isWordChar(text[at + delimiter.length]))
    ) {
      return at;
    }
    i += run - 1;
  }
  return -1;
}

/**
 * Parses inline markdown: emphasis, code spans, links, autolinks, escapes and line breaks. `depth`
 * is the nesting already around the text (see {@link maxMarkdownNesting}).
 */
export function parseInline(text: string, depth = 0): MarkdownInline[] {
  if (depth >= maxMarkdownNesting) return text === '' ? [] : [{ type: 'text', text }];
  const out: MarkdownInline[] = [];
  let buffer = '';
  const flush = () => {
    if (buffer) out.push({ type: 'text', text: buffer });
    buffer = '';
  };
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    const rest = text.slice(i);
    if (char === '\\' && punctuation.test(text[i + 1] ?? '')) {
      buffer += text[i + 1];
      i += 2;
      continue;
    }
    if (char === '\\' && text[i + 1] === '\n') {
      flush();
      out.push({ type: 'break' });
      i += 2;
      continue;
    }
    if (char === '\n') {
      // Chat answers mean their single line breaks, so they are kept.
      buffer = buffer.replace(/ +$/, '');
      flush();
      out.push({ type: 'break' });
      i += 1;
      while (text[i] === ' ') i += 1;
      continue;
    }
    if (char === '`') {
      const run = /^`+/.exec(rest)![0];
      const end = text.indexOf(run, i + run.length);
      if (end >= 0 && text[end + run.length] !== '`') {
        let code = text.slice(i + run.length, end).replace(/\n/g, ' ');
        if (code.length > 2 && code.startsWith(' ') && code.endsWith(' ')) code = code.slice(1, -1);
        flush();
        out.push({ type: 'code', text: code });
        i = end + run.length;
        continue;
      }
      buffer += run;
      i += run.length;
      continue;
    }
    if (char === '[' || (char === '!' && text[i + 1] === '[')) {
      const open = char === '!' ? i + 1 : i;
      const close = closingBracket(text, open);
      if (close > 0 && text[close + 1] === '(') {
        const end = closingParen(text, close + 1);
        if (end > 0) {
          const target = text
            .slice(close + 2, end)
            .trim()
            .replace(/\s+("[^"]*"|'[^']*')$/, '');
          const label = text.slice(open + 1, close);
          const href = safeHref(target);
          flush();
          // Images become links: a chat answer does not fetch remote pictures into the page.
          const children = parseInline(label === '' ? target : label, depth + 1);
          if (href) out.push({ type: 'link', href, children });
          else out.push(...children);
          i = end + 1;
          continue;
        }
      }
    }
    if (char === '<') {
      const auto = /^<((?:https?:\/\/|mailto:)[^\s<>]+)>/i.exec(rest);
      if (auto) {
        flush();
        out.push({ type: 'link', href: auto[1]!, children: [{ type: 'text', text: auto[1]! }] });
        i += auto[0].length;
        continue;
      }
    }
    if ((char === 'h' || char === 'H') && !isWordChar(text[i - 1])) {
      const url = bareUrlPattern.exec(rest);
      if (url) {
        flush();
        out.push({ type: 'link', href: url[0], children: [{ type: 'text', text: url[0] }] });
        i += url[0].length;
        continue;
      }
    }
    if (char === '*' || char === '_' || char === '~') {
      const run = new RegExp(`^\\${char}+`).exec(rest)![0];
      const next = text[i + run.length];
      const canOpen =
        next !== undefined &&
        !/\s/.test(next) &&
        (char !== '_' || !isWordChar(text[i - 1])) &&
        (char !== '~' || run.length === 2);
      if (canOpen) {
        const strong = run.length >= 2 && char !== '~';
        const delimiter = char === '~' ? '~~' : strong ? char.repeat(2) : char;
        // `***x***` is strong around emphasis: open the strong one here, the em one inside.
        const inner = i + delimiter.length;
        const end = closingDelimiter(text, inner, delimiter);
        if (end > inner) {
          flush();
          const type = char === '~' ? 'del' : strong ? 'strong' : 'em';
          out.push({ type, children: parseInline(text.slice(inner, end), depth + 1) });
          i = end + delimiter.length;
          continue;
        }
      }
      buffer += run;
      i += run.length;
      continue;
    }
    buffer += char;
    i += 1;
  }
  flush();
  return out;
}

/**
 * Parses the markdown of a chat answer into blocks: paragraphs, headings, fenced code (an unclosed
 * fence runs to the end, as while streaming), ordered and unordered lists (nested by indentation),
 * block quotes, rules and tables. HTML is text: nothing here is ever interpreted as markup.
 */
export function parseMarkdown(text: string): MarkdownBlock[] {
  return parseLines(text.replace(/\r\n?/g, '\n').replace(/\t/g, '    ').split('\n'), 0);
}
