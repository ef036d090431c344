import { describe, expect, it } from 'vitest';
import { exampleJsonSchema, exampleTools } from './chat-settings.js';
import { checkJsonSchemaText, checkToolsText } from './check-json-settings.js';

describe('checkJsonSchemaText', () => {
  it('accepts the example schema and returns it parsed', () => {
    const result = checkJsonSchemaText(exampleJsonSchema);
    expect(result.ok).toBe(true);
    expect(result.ok && result.value.required).toEqual(['answer', 'confidence']);
  });

  it('says where JSON breaks while it is being typed', () => {
    expect(checkJsonSchemaText('{"type": "object",')).toEqual({
      ok: false,
      error: expect.stringMatching(/^Not valid JSON: ./),
    });
    expect(checkJsonSchemaText('   ')).toEqual({ ok: false, error: 'Empty: write a JSON value.' });
  });

  it('wants a schema object, not another JSON value', () => {
    expect(checkJsonSchemaText('[1, 2]')).toEqual({
      ok: false,
      error: 'Expected a JSON Schema object, got an array.',
    });
    expect(checkJsonSchemaText('"object"')).toEqual({
      ok: false,
      error: 'Expected a JSON Schema object, got the string "object".',
    });
  });

  it('names the path of a keyword with the wrong shape', () => {
    const nested = JSON.stringify({
      type: 'object',
      properties: { age: { type: 'int' } },
    });
    expect(checkJsonSchemaText(nested)).toEqual({
      ok: false,
      error:
        '/properties/age/type: expected one of string, number, integer, boolean, object, array, null (or a list of them), got the string "int".',
    });
    expect(checkJsonSchemaText('{"type": "object", "required": "name"}')).toEqual({
      ok: false,
      error: '/required: expected a list of property names, got the string "name".',
    });
    expect(checkJsonSchemaText('{"type": "array", "items": [1]}')).toEqual({
      ok: false,
      error: '/items: expected a schema object, got an array.',
    });
    expect(checkJsonSchemaText('{"anyOf": [{"type": "string"}, 3]}')).toEqual({
      ok: false,
      error: '/anyOf/1: expected a schema object, got the number 3.',
    });
  });

  it('accepts type lists, boolean subschemas and $defs', () => {
    const schema = {
      type: ['object', 'null'],
      properties: { tags: { type: 'array', items: { $ref: '#/$defs/tag' } } },
      additionalProperties: false,
      $defs: { tag: { type: 'string', enum: ['a', 'b'] } },
    };
    expect(checkJsonSchemaText(JSON.stringify(schema))).toEqual({ ok: true, value: schema });
  });
});

describe('checkToolsText', () => {
  it('accepts the example list in the OpenAI shape', () => {
    const result = checkToolsText(exampleTools);
    expect(result.ok && result.value.map((t) => t.function.name)).toEqual(['get_weather']);
  });

  it('wraps bare function definitions and gives a missing parameters an empty object schema', () => {
    expect(checkToolsText('[{"name": "now", "description": "The time"}]')).toEqual({
      ok: true,
      value: [
        {
          type: 'function',
          function: {
            name: 'now',
            description: 'The time',
            parameters: { type: 'object', properties: {} },
          },
        },
      ],
    });
  });

  it('rejects what OpenAI would, saying which tool and why', () => {
    expect(checkToolsText('{"name": "x"}')).toEqual({
      ok: false,
      error: 'Expected a list of function definitions, got an object.',
    });
    expect(checkToolsText('[]')).toEqual({
      ok: false,
      error: 'The list is empty: define at least one function.',
    });
    expect(checkToolsText('[{"name": "get weather"}]')).toEqual({
      ok: false,
      error: 'Tool 1: name must be 1 to 64 letters, digits, _ or -, got the string "get weather".',
    });
    expect(
      checkToolsText('[{"name": "a"}, {"type": "function", "function": {"name": "a"}}]'),
    ).toEqual({ ok: false, error: 'Tool 2: the name "a" is used twice.' });
    expect(checkToolsText('[{"type": "retrieval", "name": "a"}]')).toEqual({
      ok: false,
      error: 'Tool 1: type must be "function", got the string "retrieval".',
    });
    expect(
      checkToolsText('[{"name": "a", "parameters": {"properties": {"x": {"type": "text"}}}}]'),
    ).toEqual({
      ok: false,
      error: expect.stringMatching(/^Tool 1: \/parameters\/properties\/x\/type: expected one of/),
    });
  });
});

describe('the server’s own schema check', () => {
  it('refuses in the editor what the server would refuse under strict', () => {
    const result = checkJsonSchemaText(
      '{"type": "object", "properties": {"score": {"type": "number", "minimum": 0}}}',
    );
    expect(result).toEqual({
      ok: false,
      error: expect.stringMatching(/"minimum" can be enforced only on "type": "integer"/),
    });
    expect(checkJsonSchemaText('{"type": "string", "format": "email"}')).toMatchObject({
      ok: false,
    });
  });

  it('takes a tool without strict as the server does, leniently', () => {
    const lenient = checkToolsText(
      '[{"name": "a", "parameters": {"type": "object", "properties": {"n": {"type": "number", "minimum": 0}}}}]',
    );
    expect(lenient.ok).toBe(true);
    const remote = checkToolsText(
      '[{"name": "a", "parameters": {"$ref": "https://example.com/schema.json"}}]',
    );
    expect(remote).toMatchObject({ ok: false, error: expect.stringMatching(/^Tool 1: /) });
  });
});
