import { describe, expect, it } from 'vitest';
import { parseInline, parseMarkdown } from './parse-markdown.js';

const text = (value: string) => ({ type: 'text', text: value });

describe('parseInline', () => {
  it('reads bold, italic, strikethrough and inline code', () => {
    expect(parseInline('a **b** *c* _d_ ~~e~~ `f`')).toEqual([
      text('a '),
      { type: 'strong', children: [text('b')] },
      text(' '),
      { type: 'em', children: [text('c')] },
      text(' '),
      { type: 'em', children: [text('d')] },
      text(' '),
      { type: 'del', children: [text('e')] },
      text(' '),
      { type: 'code', text: 'f' },
    ]);
  });

  it('nests emphasis, including ***both***', () => {
    expect(parseInline('***x***')).toEqual([
      { type: 'strong', children: [{ type: 'em', children: [text('x')] }] },
    ]);
    expect(parseInline('*a **b** c*')).toEqual([
      { type: 'em', children: [text('a '), { type: 'strong', children: [text('b')] }, text(' c')] },
    ]);
  });

  it('leaves snake_case, lone stars and arithmetic alone', () => {
    expect(parseInline('snake_case_name')).toEqual([text('snake_case_name')]);
    expect(parseInline('2 * 3 * 4')).toEqual([text('2 * 3 * 4')]);
    expect(parseInline('**unclosed')).toEqual([text('**unclosed')]);
  });

  it('does not read markup inside code spans', () => {
    expect(parseInline('`**x** <b>`')).toEqual([{ type: 'code', text: '**x** <b>' }]);
    expect(parseInline('``a ` b``')).toEqual([{ type: 'code', text: 'a ` b' }]);
  });

  it('makes links of http(s) and mailto URLs only', () => {
    expect(parseInline('[docs](https://example.com/a_(b) "title")')).toEqual([
      { type: 'link', href: 'https://example.com/a_(b)', children: [text('docs')] },
    ]);
    expect(parseInline('[x](javascript:alert(1))')).toEqual([text('x')]);
    expect(parseInline('[x](data:text/html,hi)')).toEqual([text('x')]);
    expect(parseInline('<mailto:a@b.c>')).toEqual([
      { type: 'link', href: 'mailto:a@b.c', children: [text('mailto:a@b.c')] },
    ]);
  });

  it('links bare URLs without their trailing punctuation', () => {
    expect(parseInline('See https://example.com/x.')).toEqual([
      text('See '),
      { type: 'link', href: 'https://example.com/x', children: [text('https://example.com/x')] },
      text('.'),
    ]);
  });

  it('turns images into links rather than loading them', () => {
    expect(parseInline('![a cat](https://example.com/cat.png)')).toEqual([
      { type: 'link', href: 'https://example.com/cat.png', children: [text('a cat')] },
    ]);
  });

  it('keeps HTML as text and honours escapes', () => {
    expect(parseInline('<script>alert(1)</script>')).toEqual([text('<script>alert(1)</script>')]);
    expect(parseInline('\\*not em\\*')).toEqual([text('*not em*')]);
  });

  it('keeps single line breaks', () => {
    expect(parseInline('one\ntwo')).toEqual([text('one'), { type: 'break' }, text('two')]);
  });
});

describe('parseMarkdown', () => {
  it('reads headings, paragraphs and rules', () => {
    expect(parseMarkdown('# Title\n\nSome *text*.\n\n---\n### Sub ###')).toEqual([
      { type: 'heading', level: 1, children: [text('Title')] },
      {
        type: 'paragraph',
        children: [text('Some '), { type: 'em', children: [text('text')] }, text('.')],
      },
      { type: 'rule' },
      { type: 'heading', level: 3, children: [text('Sub')] },
    ]);
  });

  it('reads fenced code with its language, verbatim', () => {
    expect(parseMarkdown('Run:\n```ts\nconst a = 1; // **x**\n\n<b>\n```\nDone')).toEqual([
      { type: 'paragraph', children: [text('Run:')] },
      { type: 'code', language: 'ts', text: 'const a = 1; // **x**\n\n<b>', closed: true },
      { type: 'paragraph', children: [text('Done')] },
    ]);
  });

  it('runs an unclosed fence to the end, as while streaming', () => {
    expect(parseMarkdown('~~~\nline 1\nline 2')).toEqual([
      { type: 'code', language: '', text: 'line 1\nline 2', closed: false },
    ]);
  });

  it('reads unordered and ordered lists with their start number', () => {
    expect(parseMarkdown('- a\n- **b**\n\n3. x\n4. y')).toEqual([
      {
        type: 'list',
        ordered: false,
        start: 1,
        items: [
          [{ type: 'paragraph', children: [text('a')] }],
          [{ type: 'paragraph', children: [{ type: 'strong', children: [text('b')] }] }],
        ],
      },
      {
        type: 'list',
        ordered: true,
        start: 3,
        items: [
          [{ type: 'paragraph', children: [text('x')] }],
          [{ type: 'paragraph', children: [text('y')] }],
        ],
      },
    ]);
  });

  it('nests lists by indentation and keeps loose items together', () => {
    const [list] = parseMarkdown('1. one\n   - a\n   - b\n\n2. two\n   more');
    expect(list).toEqual({
      type: 'list',
      ordered: true,
      start: 1,
      items: [
        [
          { type: 'paragraph', children: [text('one')] },
          {
            type: 'list',
            ordered: false,
            start: 1,
            items: [
              [{ type: 'paragraph', children: [text('a')] }],
              [{ type: 'paragraph', children: [text('b')] }],
            ],
          },
        ],
        [{ type: 'paragraph', children: [text('two'), { type: 'break' }, text('more')] }],
      ],
    });
  });

  it('nests a two-space sublist under a numbered item', () => {
    const [list] = parseMarkdown('1. one\n  - a\n2. two');
    expect(list).toMatchObject({
      type: 'list',
      items: [[{ type: 'paragraph' }, { type: 'list', ordered: false }], [{ type: 'paragraph' }]],
    });
  });

  it('reads a code block inside a list item', () => {
    const [list] = parseMarkdown('- step:\n  ```sh\n  npm test\n  ```');
    expect(list).toMatchObject({
      items: [
        [
          { type: 'paragraph', children: [text('step:')] },
          { type: 'code', language: 'sh', text: 'npm test', closed: true },
        ],
      ],
    });
  });

  it('reads block quotes and tables', () => {
    expect(parseMarkdown('> quoted\n> **text**')).toEqual([
      {
        type: 'blockquote',
        children: [
          {
            type: 'paragraph',
            children: [
              text('quoted'),
              { type: 'break' },
              { type: 'strong', children: [text('text')] },
            ],
          },
        ],
      },
    ]);
    expect(parseMarkdown('| a | b |\n|:--|--:|\n| 1 | `\\|` |\n| 2 |')).toEqual([
      {
        type: 'table',
        header: [[text('a')], [text('b')]],
        align: ['left', 'right'],
        rows: [
          [[text('1')], [{ type: 'code', text: '|' }]],
          [[text('2')], []],
        ],
      },
    ]);
  });

  it('treats HTML blocks as text', () => {
    expect(parseMarkdown('<img src=x onerror=alert(1)>')).toEqual([
      { type: 'paragraph', children: [text('<img src=x onerror=alert(1)>')] },
    ]);
  });

  it('stops nesting at 32 levels and keeps what lies deeper as text, however deep the input', () => {
    /** Depth of the deepest node, counting blocks and inline nodes. */
    const depthOf = (node: unknown): number => {
      if (Array.isArray(node)) return Math.max(0, ...node.map(depthOf));
      if (typeof node !== 'object' || node === null) return 0;
      const { children, items } = node as { children?: unknown; items?: unknown };
      return 1 + Math.max(depthOf(children ?? []), depthOf(items ?? []));
    };
    const quotes = parseMarkdown(`${'>'.repeat(100_000)} deep`);
    expect(depthOf(quotes)).toBeLessThanOrEqual(34);
    expect(JSON.stringify(quotes)).toContain(`${'>'.repeat(100_000 - 32)} deep`);
    const lists = parseMarkdown(`${'- '.repeat(50_000)}x`);
    expect(depthOf(lists)).toBeLessThanOrEqual(34 * 2);
    expect(depthOf(parseMarkdown(`${'*_'.repeat(2000)}x${'_*'.repeat(2000)}`))).toBeLessThanOrEqual(
      34,
    );
    const links = parseInline(`${'['.repeat(3000)}x${'](https://a.example)'.repeat(3000)}`);
    expect(depthOf(links)).toBeLessThanOrEqual(33);
    expect(parseInline('*a*', 32)).toEqual([text('*a*')]);
  });
});
