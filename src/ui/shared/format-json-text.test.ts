import { describe, expect, it } from 'vitest';
import { formatJsonText, jsonAnswerMarkdown } from './format-json-text.js';

describe('formatJsonText', () => {
  it('indents JSON and leaves other text as it is', () => {
    expect(formatJsonText('{"a":[1,2]}')).toEqual({
      text: '{\n  "a": [\n    1,\n    2\n  ]\n}',
      valid: true,
    });
    expect(formatJsonText('{"a":')).toEqual({ text: '{"a":', valid: false });
  });
});

describe('jsonAnswerMarkdown', () => {
  it('puts the formatted answer in a json block', () => {
    expect(jsonAnswerMarkdown('{"ok":true}')).toBe('```json\n{\n  "ok": true\n}\n```');
  });

  it('fences with more backticks than the answer holds', () => {
    expect(jsonAnswerMarkdown('{"code":"````"}')).toBe('`````json\n{\n  "code": "````"\n}\n`````');
  });
});
