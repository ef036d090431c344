import { assertEnforceableSchema } from '../../../api/index.js';

/** A JSON Schema object as the Chat tab sends it. */
export type JsonSchemaObject = Record<string, unknown>;

/** A function the model may call, in the OpenAI `tools` shape the Chat tab sends. */
export interface WireTool {
  type: 'function';
  function: { name: string; description?: string; parameters: JsonSchemaObject };
}

/** What a check of a settings editor found: the value to send, or why it cannot be sent. */
export type JsonCheck<T> = { ok: true; value: T } | { ok: false; error: string };

const schemaTypes = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];
/** Keywords whose value is a map of names to schemas. */
const schemaMaps = ['properties', 'patternProperties', '$defs', 'definitions'];
/** Keywords whose value is one schema (or `true`/`false`). */
const schemaSlots = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames'];
/** Keywords whose value is a list of schemas. */
const schemaLists = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `the ${typeof value} ${JSON.stringify(value)}`;
}

function parseJson(text: string): JsonCheck<unknown> {
  if (text.trim() === '') return { ok: false, error: 'Empty: write a JSON value.' };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    // The engine's own message names the position ("... at position 42").
    return { ok: false, error: `Not valid JSON: ${(error as Error).message}` };
  }
}

/** The first problem with the shape of a schema's keywords, as `path: problem`, or undefined. */
function schemaProblem(schema: unknown, path: string): string | undefined {
  if (typeof schema === 'boolean') return undefined;
  if (!isObject(schema)) return `${path}: expected a schema object, got ${kind(schema)}.`;
  const type = schema.type;
  if (type !== undefined) {
    const types = Array.isArray(type) ? type : [type];
    const bad = types.find((t) => typeof t !== 'string' || !schemaTypes.includes(t));
    if (bad !== undefined || types.length === 0) {
      return `${path}/type: expected one of ${schemaTypes.join(', ')} (or a list of them), got ${kind(bad ?? type)}.`;
    }
  }
  const required = schema.required;
  if (
    required !== undefined &&
    !(Array.isArray(required) && required.every((r) => typeof r === 'string'))
  ) {
    return `${path}/required: expected a list of property names, got ${kind(required)}.`;
  }
  if (schema.enum !== undefined && !Array.isArray(schema.enum)) {
    return `${path}/enum: expected a list of values, got ${kind(schema.enum)}.`;
  }
  for (const key of schemaMaps) {
    const map = schema[key];
    if (map === undefined) continue;
    if (!isObject(map)) return `${path}/${key}: expected an object of schemas, got ${kind(map)}.`;
    for (const [name, sub] of Object.entries(map)) {
      const problem = schemaProblem(sub, `${path}/${key}/${name}`);
      if (problem !== undefined) return problem;
    }
  }
  for (const key of schemaSlots) {
    if (schema[key] === undefined) continue;
    const problem = schemaProblem(schema[key], `${path}/${key}`);
    if (problem !== undefined) return problem;
  }
  for (const key of schemaLists) {
    const list = schema[key];
    if (list === undefined) continue;
    if (!Array.isArray(list))
      return `${path}/${key}: expected a list of schemas, got ${kind(list)}.`;
    for (const [i, sub] of list.entries()) {
      const problem = schemaProblem(sub, `${path}/${key}/${i}`);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

/**
 * What the server refuses in a schema, by the server's own check (`assertEnforceableSchema`):
 * `strict` as the Chat tab sends structured output, lenient for tools it sends without `strict`.
 */
function serverProblem(schema: unknown, param: string, lenient: boolean): string | undefined {
  try {
    assertEnforceableSchema(schema, param, { lenient });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Checks the Structured output editor: the text must be JSON, a schema object (as OpenAI's
 * `json_schema` takes), its keywords must have the shapes JSON Schema gives them (the message
 * says where, as a JSON pointer such as `/properties/age/type`, and what was expected), and the
 * server must be able to enforce it: its own check runs here, so what passes is what it takes.
 */
export function checkJsonSchemaText(text: string): JsonCheck<JsonSchemaObject> {
  const parsed = parseJson(text);
  if (!parsed.ok) return parsed;
  if (!isObject(parsed.value)) {
    return { ok: false, error: `Expected a JSON Schema object, got ${kind(parsed.value)}.` };
  }
  const problem =
    schemaProblem(parsed.value, '')?.replace(/^: /, '') ??
    serverProblem(parsed.value, 'response_format.json_schema.schema', false);
  if (problem !== undefined) return { ok: false, error: problem };
  return { ok: true, value: parsed.value };
}

/** OpenAI's rule for function names. */
const toolName = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Checks the Tools editor: a JSON list of function definitions, each in OpenAI's shape
 * (`{"type": "function", "function": {name, description, parameters}}`) or just the inner
 * `{name, description, parameters}`; names are unique and `parameters` is a schema object.
 */
export function checkToolsText(text: string): JsonCheck<WireTool[]> {
  const parsed = parseJson(text);
  if (!parsed.ok) return parsed;
  if (!Array.isArray(parsed.value)) {
    return {
      ok: false,
      error: `Expected a list of function definitions, got ${kind(parsed.value)}.`,
    };
  }
  const tools: WireTool[] = [];
  for (const [i, item] of parsed.value.entries()) {
    const at = `Tool ${i + 1}`;
    if (!isObject(item))
      return { ok: false, error: `${at}: expected an object, got ${kind(item)}.` };
    if (item.type !== undefined && item.type !== 'function') {
      return { ok: false, error: `${at}: type must be "function", got ${kind(item.type)}.` };
    }
    const fn = item.function ?? item;
    if (!isObject(fn)) {
      return { ok: false, error: `${at}: "function" must be an object, got ${kind(fn)}.` };
    }
    if (typeof fn.name !== 'string' || !toolName.test(fn.name)) {
      return {
        ok: false,
        error: `${at}: name must be 1 to 64 letters, digits, _ or -, got ${kind(fn.name)}.`,
      };
    }
    if (tools.some((t) => t.function.name === fn.name)) {
      return { ok: false, error: `${at}: the name "${fn.name}" is used twice.` };
    }
    if (fn.description !== undefined && typeof fn.description !== 'string') {
      return { ok: false, error: `${at}: description must be text, got ${kind(fn.description)}.` };
    }
    const parameters = fn.parameters ?? { type: 'object', properties: {} };
    if (!isObject(parameters)) {
      return {
        ok: false,
        error: `${at}: parameters must be a schema object, got ${kind(parameters)}.`,
      };
    }
    const problem =
      schemaProblem(parameters, '/parameters') ??
      serverProblem(parameters, `tools[${i}].function.parameters`, true);
    if (problem !== undefined) return { ok: false, error: `${at}: ${problem}` };
    tools.push({
      type: 'function',
      function: {
        name: fn.name,
        ...(fn.description === undefined ? {} : { description: fn.description }),
        parameters,
      },
    });
  }
  if (tools.length === 0)
    return { ok: false, error: 'The list is empty: define at least one function.' };
  return { ok: true, value: tools };
}
