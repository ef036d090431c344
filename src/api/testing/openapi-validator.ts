// Checks lmtab's answers against an official OpenAPI description (tests/fixtures/openapi): the
// schema of the operation's response for that status and content type, as the spec states it.
import { readFileSync } from 'node:fs';
import { brotliDecompressSync } from 'node:zlib';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { parse } from 'yaml';

/** The parts of an OpenAPI 3.1 document the checks read. */
interface OpenApiDocument {
  paths: Record<string, Record<string, { responses?: Record<string, ResponseObject> }>>;
}
interface ResponseObject {
  content?: Record<string, { schema?: unknown }>;
}

const fixtures = new URL('../../../tests/fixtures/openapi/', import.meta.url);

/** The vendored specs: OpenAI's `openapi.json` (Brotli) and Ollama's `docs/openapi.yaml`. */
export function readVendoredSpec(name: 'openai' | 'ollama'): OpenApiDocument {
  return name === 'openai'
    ? (JSON.parse(
        brotliDecompressSync(readFileSync(new URL('openai-openapi.json.br', fixtures))).toString(),
      ) as OpenApiDocument)
    : (parse(readFileSync(new URL('ollama-openapi.yaml', fixtures), 'utf8')) as OpenApiDocument);
}

/** One answer to check: the request's method and path, the status, the content type, the value. */
export interface Answer {
  method: string;
  /** The path as lmtab serves it (`/v1/chat/completions`); the spec's server prefix is removed. */
  path: string;
  status: number;
  contentType: 'application/json' | 'text/event-stream' | 'application/x-ndjson';
  /** The JSON body, or one SSE event's or NDJSON line's JSON. */
  value: unknown;
}

/** Options of {@link openApiValidator}. */
export interface OpenApiValidatorOptions {
  /** The spec's server path that lmtab's paths carry (`/v1` for OpenAI's). Default none. */
  serverPrefix?: string;
}

/**
 * OpenAI's 3.1 spec still says `nullable: true` (OpenAPI 3.0's word) in places, some without a
 * `type`, which Ajv refuses to compile; each becomes what 3.0 meant: the schema, or null.
 */
function withoutNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutNullable);
  if (typeof node !== 'object' || node === null) return node;
  const { nullable, ...rest } = node as Record<string, unknown>;
  const schema = Object.fromEntries(
    Object.entries(rest).map(([key, value]) => [key, withoutNullable(value)]),
  );
  if (nullable !== true) return schema;
  // As Ajv and OpenAI's own SDK read it, null joins an enum too.
  if (Array.isArray(schema.enum)) schema.enum = [...(schema.enum as unknown[]), null];
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/**
 * OpenAI's spec gives a transcription's JSON answer as `oneOf` plain, diarized and verbose, whose
 * members admit other fields: every verbose answer is also a plain one, so OpenAI's own verbose
 * answers match two and fail `oneOf`. Read as what it means, `anyOf`.
 */
function withTranscriptionAnyOf(spec: OpenApiDocument): OpenApiDocument {
  const content = spec.paths['/audio/transcriptions']?.post?.responses?.['200']?.content;
  const schema = content?.['application/json']?.schema as Record<string, unknown> | undefined;
  if (schema?.oneOf === undefined) return spec;
  const copy = structuredClone(spec);
  const target = copy.paths['/audio/transcriptions']!.post!.responses!['200']!.content![
    'application/json'
  ]!.schema as Record<string, unknown>;
  target.anyOf = target.oneOf;
  delete target.oneOf;
  return copy;
}

const escapePointer = (part: string) => part.replaceAll('~', '~0').replaceAll('/', '~1');

/** A checker of answers against `spec`; it returns the schema's complaints, empty when valid. */
export function openApiValidator(
  spec: OpenApiDocument,
  options: OpenApiValidatorOptions = {},
): (answer: Answer) => string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  spec = withTranscriptionAnyOf(spec);
  ajv.addSchema(withoutNullable(spec) as object, 'spec');
  const templates = Object.keys(spec.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));
  const compiled = new Map<string, ValidateFunction>();
  return (answer) => {
    const prefix = options.serverPrefix ?? '';
    if (!answer.path.startsWith(prefix)) return [`${answer.path} is not under ${prefix}`];
    const path = answer.path.slice(prefix.length);
    const template = templates.find((t) => t.pattern.test(path))?.template;
    if (template === undefined) return [`the spec has no path for ${answer.path}`];
    const method = answer.method.toLowerCase();
    const responses = spec.paths[template]?.[method]?.responses ?? {};
    const status = String(answer.status) in responses ? String(answer.status) : 'default';
    if (responses[status]?.content?.[answer.contentType]?.schema === undefined) {
      return [
        `the spec states no ${answer.contentType} schema for ${method} ${template} ${status}`,
      ];
    }
    const pointer = ['paths', template, method, 'responses', status, 'content', answer.contentType]
      .map(escapePointer)
      .join('/');
    const key = `spec#/${pointer}/schema`;
    let validate = compiled.get(key);
    if (validate === undefined) {
      validate = ajv.getSchema(key);
      if (validate === undefined) return [`no schema at ${key}`];
      compiled.set(key, validate);
    }
    if (validate(answer.value)) return [];
    return (validate.errors ?? []).map(
      (error) =>
        `${method} ${answer.path} ${answer.contentType}: ${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
    );
  };
}

/**
 * OpenAI's spec states no stream schema for /v1/completions: its chunks are completions whose
 * `finish_reason` is null until the last, as OpenAI sends them and lmtab does. Such a chunk is
 * checked against the completion schema with that one field taken as the final value; any other
 * answer is returned as it is.
 */
export function asSpecAnswer(answer: Answer): Answer {
  if (answer.path !== '/v1/completions' || answer.contentType !== 'text/event-stream')
    return answer;
  const chunk = answer.value as { choices: { finish_reason: string | null }[] };
  return {
    ...answer,
    contentType: 'application/json',
    value: {
      ...chunk,
      choices: chunk.choices.map((choice) => ({
        ...choice,
        finish_reason: choice.finish_reason ?? 'stop',
      })),
    },
  };
}
