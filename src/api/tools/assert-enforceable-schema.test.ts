import { describe, expect, it } from 'vitest';
import { LmtabError } from '../../errors/index.js';
import { assertEnforceableSchema } from './assert-enforceable-schema.js';

function refusal(schema: unknown): LmtabError {
  try {
    assertEnforceableSchema(schema, 'format');
  } catch (error) {
    if (error instanceof LmtabError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('assertEnforceableSchema', () => {
  it('takes what llama.cpp turns into grammar, annotations included', () => {
    expect(() =>
      assertEnforceableSchema(
        {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          title: 'Report',
          type: 'object',
          properties: {
            city: { type: 'string', enum: ['Paris'], description: 'where' },
            days: { type: 'integer', minimum: 1, maximum: 7 },
            tags: { type: 'array', items: { type: 'string', maxLength: 8 }, maxItems: 3 },
            when: { type: 'string', format: 'date' },
            code: { type: 'string', pattern: '^[A-Z]{3}$' },
            next: { $ref: '#/$defs/node' },
          },
          $defs: { node: { anyOf: [{ type: 'null' }, { type: 'boolean' }] } },
          required: ['city'],
          additionalProperties: false,
        },
        'format',
      ),
    ).not.toThrow();
  });

  it('refuses a keyword the grammar would ignore, naming it and its path', () => {
    const error = refusal({ type: 'object', properties: { n: { type: 'number', multipleOf: 2 } } });
    expect(error.code).toBe('invalid_request');
    expect(error.param).toBe('format.properties.n.multipleOf');
    expect(error.message).toContain('"multipleOf"');
  });

  it('refuses ranges on non-integers, unknown formats, unanchored patterns and remote refs', () => {
    expect(refusal({ type: 'number', minimum: 0 }).param).toBe('format.minimum');
    expect(refusal({ type: 'string', format: 'email' }).message).toContain('"email"');
    expect(refusal({ type: 'string', pattern: '[a-z]+' }).param).toBe('format.pattern');
    expect(refusal({ $ref: 'https://example.test/s.json' }).param).toBe('format.$ref');
    expect(refusal({ anyOf: [{ not: { type: 'null' } }] }).param).toBe('format.anyOf[0].not');
  });

  it('leniently, takes what it cannot enforce and refuses only what breaks the conversion', () => {
    const loose = {
      type: 'object',
      properties: {
        url: { type: 'string', format: 'uri', pattern: '[a-z]+' },
        timeout: { type: 'number', minimum: 0 },
        headers: { type: 'object', propertyNames: { not: { const: 'x' } } },
      },
    };
    expect(() => assertEnforceableSchema(loose, 'tools', { lenient: true })).not.toThrow();
    expect(refusal(loose).param).toBe('format.properties.url.format');
    const broken: [unknown, string][] = [
      [{ type: 'object', properties: { a: { type: 'text' } } }, 'tools.properties.a.type'],
      [{ $ref: 'https://example.test/s.json' }, 'tools.$ref'],
      [{ type: 'string', format: 7 }, 'tools.format'],
      [{ anyOf: [] }, 'tools.anyOf'],
    ];
    for (const [schema, param] of broken) {
      expect(() => assertEnforceableSchema(schema, 'tools', { lenient: true })).toThrow(
        expect.objectContaining({ param }) as Error,
      );
    }
  });
});
