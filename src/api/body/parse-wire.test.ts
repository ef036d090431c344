import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LmtabError } from '../../errors/index.js';
import { parseWire } from './parse-wire.js';

const schema = z.object({
  name: z.string(),
  count: z.int().min(1).nullish(),
  ratio: z.number().max(1).nullish(),
  tags: z.array(z.string()).min(1).nullish(),
  mode: z.enum(['a', 'b']).nullish(),
  either: z.union([z.string(), z.object({ url: z.string() })]).nullish(),
});

function failure(body: unknown): LmtabError {
  try {
    parseWire(schema, body);
  } catch (error) {
    if (error instanceof LmtabError) return error;
    throw error;
  }
  throw new Error('expected parseWire to throw');
}

describe('parseWire', () => {
  it('returns the parsed value and drops unknown fields', () => {
    expect(parseWire(schema, { name: 'x', extra: true, count: null })).toEqual({
      name: 'x',
      count: null,
    });
  });

  it('says a required field is missing, as a 400 invalid_request naming the param', () => {
    const error = failure({});
    expect(error.message).toBe('Missing required field `name`: expected a string.');
    expect(error).toMatchObject({ code: 'invalid_request', status: 400, param: 'name' });
  });

  it('says what was expected and what arrived', () => {
    expect(failure({ name: 3 }).message).toBe(
      'Invalid `name`: expected a string, received the number 3.',
    );
    expect(failure({ name: 'x', count: 1.5 }).message).toBe(
      'Invalid `count`: expected an integer, received the number 1.5.',
    );
    expect(failure({ name: 'x', count: 0 }).message).toBe(
      'Invalid `count`: expected an integer >= 1, received the number 0.',
    );
    expect(failure({ name: 'x', ratio: 2 }).message).toBe(
      'Invalid `ratio`: expected a number <= 1, received the number 2.',
    );
    expect(failure({ name: 'x', tags: [] }).message).toBe(
      'Invalid `tags`: expected an array of at least 1 item, received an array of 0 items.',
    );
    expect(failure({ name: 'x', mode: 'c' }).message).toBe(
      'Invalid `mode`: expected one of "a", "b", received the string "c".',
    );
    expect(failure({ name: null }).message).toBe(
      'Invalid `name`: expected a string, received null.',
    );
  });

  it('names array elements with brackets and follows a union into the branch that matched', () => {
    const error = failure({ name: 'x', tags: ['ok', false] });
    expect(error.message).toBe('Invalid `tags[1]`: expected a string, received the boolean false.');
    expect(error.param).toBe('tags[1]');
    expect(failure({ name: 'x', either: { url: 1 } }).message).toBe(
      'Invalid `either.url`: expected a string, received the number 1.',
    );
    expect(failure({ name: 'x', either: 1 }).message).toBe(
      'Invalid `either`: expected a string or an object, received the number 1.',
    );
  });

  it('describes a body that is not an object', () => {
    const error = failure([1, 2]);
    expect(error.message).toBe(
      'Invalid request body: expected an object, received an array of 2 items.',
    );
    expect(error.param).toBeUndefined();
  });

  it('reports three problems and counts the rest', () => {
    expect(failure({ count: 'a', ratio: 'b', tags: 'c', mode: 1 }).message).toBe(
      'Missing required field `name`: expected a string. ' +
        'Invalid `count`: expected an integer, received the string "a". ' +
        'Invalid `ratio`: expected a number, received the string "b". ' +
        '(2 more problems not shown.)',
    );
  });
});
