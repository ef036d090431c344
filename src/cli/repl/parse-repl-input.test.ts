import { describe, expect, it } from 'vitest';
import { findImagePaths } from './find-image-paths.js';
import { createMultilineReader, parseReplInput } from './parse-repl-input.js';

describe('parseReplInput', () => {
  it.each([
    ['', { kind: 'empty' }],
    ['Hello there', { kind: 'message', text: 'Hello there' }],
    ['/bye', { kind: 'bye' }],
    ['/?', { kind: 'help' }],
    ['/clear', { kind: 'clear' }],
    ['/show', { kind: 'show', what: 'info' }],
    ['/show Modelfile', { kind: 'show', what: 'modelfile' }],
    [
      '/set parameter temperature 0.5',
      { kind: 'set-parameter', name: 'temperature', values: ['0.5'] },
    ],
    [
      '/set parameter stop "<|im_end|>" User:',
      { kind: 'set-parameter', name: 'stop', values: ['<|im_end|>', 'User:'] },
    ],
    ['/set system You are a pirate.', { kind: 'set-system', text: 'You are a pirate.' }],
    ['/set system "Be brief."', { kind: 'set-system', text: 'Be brief.' }],
    ['/image ./cat.png What is this?', { kind: 'image', path: './cat.png', text: 'What is this?' }],
    ["/image '/tmp/my cat.png'", { kind: 'image', path: '/tmp/my cat.png', text: '' }],
    ['/image /tmp/my\\ cat.png Who?', { kind: 'image', path: '/tmp/my cat.png', text: 'Who?' }],
    ['/usr/share/doc is a folder', { kind: 'message', text: '/usr/share/doc is a folder' }],
    ['/set format json', { kind: 'set-format', value: 'json' }],
    [`/set format '{"type": "object"}'`, { kind: 'set-format', value: '{"type": "object"}' }],
    ['/set format @schema.json', { kind: 'set-format', value: '@schema.json' }],
    ['/set format', { kind: 'set-format', value: undefined }],
    ['/set noformat', { kind: 'set-format', value: undefined }],
    ['/set think', { kind: 'set-think', think: true }],
    ['/set nothink', { kind: 'set-think', think: false }],
  ])('%j', (input, expected) => expect(parseReplInput(input)).toEqual(expected));

  it.each([
    ['/image', 'Usage: /image PATH [QUESTION]'],
    ['/set parameter top_k', 'Usage: /set parameter NAME VALUE'],
    ['/set system', 'Usage: /set system TEXT'],
    ['/set verbose', /^Unknown \/set option "verbose"/],
    ['/show weights', /^Unknown \/show topic "weights"/],
    ['/load other', 'Unknown command "/load". Type /? for help.'],
  ])('%j is refused', (input, message) => {
    const parsed = parseReplInput(input);
    expect(parsed.kind).toBe('invalid');
    expect(parsed.kind === 'invalid' ? parsed.message : '').toMatch(message);
  });
});

describe('createMultilineReader', () => {
  it('passes single lines through and joins a """ block', () => {
    const reader = createMultilineReader();
    expect(reader.push('Hi')).toBe('Hi');
    expect(reader.push('"""Write')).toBeUndefined();
    expect(reader.open).toBe(true);
    expect(reader.push('a haiku')).toBeUndefined();
    expect(reader.push('about tabs."""')).toBe('Write\na haiku\nabout tabs.');
    expect(reader.open).toBe(false);
  });

  it('drops empty opening and closing lines, and reads a one-line block', () => {
    const reader = createMultilineReader();
    expect(reader.push('"""')).toBeUndefined();
    expect(reader.push('line one')).toBeUndefined();
    expect(reader.push('"""')).toBe('line one');
    expect(reader.push('"""inline"""')).toBe('inline');
  });

  it('reads a multi-line /set system', () => {
    const reader = createMultilineReader();
    expect(reader.push('/set system """You are')).toBeUndefined();
    const whole = reader.push('a pirate."""') ?? '';
    expect(parseReplInput(whole)).toEqual({ kind: 'set-system', text: 'You are\na pirate.' });
  });
});

describe('findImagePaths', () => {
  it('finds absolute, relative, home, escaped and quoted paths', () => {
    expect(
      findImagePaths(
        "What is in /tmp/a.png and ./b.JPG, ~/c.webp, /tmp/my\\ d.png or '/tmp/e f.jpeg'?",
      ),
    ).toEqual([
      { raw: '/tmp/a.png', path: '/tmp/a.png' },
      { raw: './b.JPG', path: './b.JPG' },
      { raw: '~/c.webp', path: '~/c.webp' },
      { raw: '/tmp/my\\ d.png', path: '/tmp/my d.png' },
      { raw: "'/tmp/e f.jpeg'", path: '/tmp/e f.jpeg' },
    ]);
  });

  it('ignores slashes inside words and other extensions', () => {
    expect(findImagePaths('compare a/b with /tmp/notes.txt and http://x/y.png')).toEqual([]);
  });
});
