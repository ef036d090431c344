import { describe, expect, it } from 'vitest';
import { parseFormat } from './parse-format.js';

const files: Record<string, string> = {
  '/work/schema.json': '{"type": "object", "properties": {"n": {"type": "integer"}}}',
  '/work/list.json': '[1]',
  '/work/broken.json': '{"type":',
};
const readFile = (path: string) => {
  const text = files[path];
  if (text === undefined) throw new Error(`ENOENT: no such file, open '${path}'`);
  return text;
};
const options = { cwd: '/work', readFile };

describe('parseFormat', () => {
  it('takes json, an inline schema, or a schema file', () => {
    expect(parseFormat('json', options)).toBe('json');
    expect(parseFormat('JSON', options)).toBe('json');
    expect(parseFormat('{"type":"array"}', options)).toEqual({ type: 'array' });
    expect(parseFormat('@schema.json', options)).toEqual({
      type: 'object',
      properties: { n: { type: 'integer' } },
    });
  });

  it('says what it expected and what arrived', () => {
    expect(() => parseFormat('yaml', options)).toThrow(
      `--format: expected json, a JSON Schema object such as '{"type":"object"}', or @schema.json; got "yaml".`,
    );
    expect(() => parseFormat('{"type":', { ...options, source: '/set format' })).toThrow(
      /^\/set format: the value is not valid JSON: /,
    );
    expect(() => parseFormat('@list.json', options)).toThrow(
      '--format: a JSON Schema must be an object; /work/list.json holds an array.',
    );
    expect(() => parseFormat('@broken.json', options)).toThrow(
      /^--format: \/work\/broken.json is not valid JSON: /,
    );
    expect(() => parseFormat('@missing.json', options)).toThrow(
      "--format: cannot read the schema file /work/missing.json: ENOENT: no such file, open '/work/missing.json'",
    );
  });
});
