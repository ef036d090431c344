import { LmtabError } from '../../errors/index.js';
import { describeValue } from '../body/describe-value.js';

/** Keywords that only describe (never constrain), accepted anywhere. */
const annotations = new Set([
  '$schema',
  '$id',
  '$comment',
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
]);

/**
 * Keywords llama.cpp's json-schema-to-grammar turns into grammar rules (llama.cpp b11364):
 * anything else would be ignored there, so the answer could break it.
 */
const enforced = new Set([
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'anyOf',
  'oneOf',
  'allOf',
  '$ref',
  '$defs',
  'definitions',
]);

/** String formats the grammar converter has rules for. */
const formats = new Set(['date', 'time', 'date-time', 'uuid']);

const types = new Set(['string', 'number', 'integer', 'boolean', 'null', 'object', 'array']);

function refuse(path: string, message: string): never {
  throw new LmtabError('invalid_request', `${message} (at \`${path}\`).`, { param: path });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typesOf(schema: Record<string, unknown>): string[] {
  const type = schema.type;
  return typeof type === 'string' ? [type] : Array.isArray(type) ? (type as string[]) : [];
}

/** Options of {@link assertEnforceableSchema}. */
export interface EnforceableSchemaOptions {
  /**
   * Accept what the engine cannot enforce (unknown keywords and formats, ranges on non-integers,
   * unanchored patterns: left unenforced), refusing only what breaks its schema conversion (an
   * unknown `type`, a remote `$ref`, malformed sub-schemas); default false.
   */
  lenient?: boolean;
}

/**
 * Checks that the engine can enforce every keyword of a JSON Schema, before any generation:
 * a keyword it would ignore is a 400 naming it and its path (`param` is the request's field path,
 * e.g. `response_format.json_schema.schema`), never an answer that might not validate.
 */
export function assertEnforceableSchema(
  schema: unknown,
  param: string,
  options: EnforceableSchemaOptions = {},
): void {
  visit(schema, param, options.lenient === true);
}

function visit(schema: unknown, path: string, lenient: boolean): void {
  if (typeof schema === 'boolean') return;
  if (!isRecord(schema)) {
    refuse(
      path,
      `Expected a JSON Schema (an object or a boolean), received ${describeValue(schema)}`,
    );
  }
  for (const [key, value] of Object.entries(schema)) {
    const at = `${path}.${key}`;
    if (annotations.has(key)) continue;
    if (!enforced.has(key)) {
      // llama.cpp skips keywords it does not know, sub-schemas included.
      if (lenient) continue;
      refuse(
        at,
        `The JSON Schema keyword "${key}" cannot be enforced by this engine (llama.cpp turns a schema into a grammar and would ignore it), so the answer could break the schema. Remove it, or express it with: ${[...enforced].join(', ')}`,
      );
    }
    switch (key) {
      case 'type':
        for (const type of typeof value === 'string'
          ? [value]
          : Array.isArray(value)
            ? value
            : [value]) {
          if (typeof type !== 'string' || !types.has(type)) {
            refuse(
              at,
              `Expected a JSON Schema type (${[...types].join(', ')}), received ${describeValue(type)}`,
            );
          }
        }
        break;
      case 'properties':
      case '$defs':
      case 'definitions':
        if (!isRecord(value))
          refuse(at, `Expected an object of schemas, received ${describeValue(value)}`);
        for (const [name, inner] of Object.entries(value)) visit(inner, `${at}.${name}`, lenient);
        break;
      case 'additionalProperties':
      case 'items':
        if (Array.isArray(value)) value.forEach((inner, i) => visit(inner, `${at}[${i}]`, lenient));
        else visit(value, at, lenient);
        break;
      case 'prefixItems':
      case 'anyOf':
      case 'oneOf':
      case 'allOf':
        if (!Array.isArray(value) || value.length === 0) {
          refuse(at, `Expected a non-empty array of schemas, received ${describeValue(value)}`);
        }
        value.forEach((inner, i) => visit(inner, `${at}[${i}]`, lenient));
        break;
      case 'format':
        if (typeof value !== 'string' || !(lenient || formats.has(value))) {
          refuse(
            at,
            `The string format ${typeof value === 'string' ? JSON.stringify(value) : describeValue(value)} cannot be enforced by this engine; it enforces ${[...formats].join(', ')}. Use a "pattern" instead`,
          );
        }
        break;
      case 'pattern':
        if (typeof value === 'string' && lenient) break;
        if (typeof value !== 'string' || !value.startsWith('^') || !value.endsWith('$')) {
          refuse(
            at,
            `Expected a pattern anchored with ^ and $ (llama.cpp matches the whole string), received ${describeValue(value)}`,
          );
        }
        break;
      case 'minimum':
      case 'maximum':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        if (lenient) break;
        if (!typesOf(schema).every((type) => type === 'integer') || typesOf(schema).length === 0) {
          refuse(
            at,
            `"${key}" can be enforced only on "type": "integer" (llama.cpp has no grammar for ranges of other numbers), received it on ${describeValue(schema.type ?? 'a schema without a type')}`,
          );
        }
        break;
      case '$ref':
        if (typeof value !== 'string' || !value.startsWith('#')) {
          refuse(
            at,
            `Expected a reference inside the schema (starting with "#"), received ${describeValue(value)}`,
          );
        }
        break;
    }
  }
}
