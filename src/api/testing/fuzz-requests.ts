import fc from 'fast-check';
import type { ModelRecord } from '../../store/index.js';
import { routes } from '../routing/routes.js';
import { embedderRecordFixture, modelRecordFixture } from './model-record-fixture.js';

/** One request the fuzzer sends: through the router (a `Request`) or the relay (raw HTTP). */
export interface FuzzRequest {
  /** The route it was made for, e.g. `POST /v1/chat/completions` (for run statistics). */
  route: string;
  method: string;
  /** Path and query. */
  path: string;
  headers: Record<string, string>;
  /** Undefined for none (GET, HEAD). */
  body: Uint8Array | undefined;
}

/** The seed and case count of a fuzz run: fixed and small in `npm test`, chosen for long runs. */
export function fuzzSettings(defaultRuns: number): { seed: number; numRuns: number } {
  const runs = Number(process.env.LMTAB_FUZZ_RUNS ?? defaultRuns);
  const seed = Number(process.env.LMTAB_FUZZ_SEED ?? 20261127);
  return { seed, numRuns: Number.isInteger(runs) && runs > 0 ? runs : defaultRuns };
}

const model = 'lfm2-350m';
const embedder = 'nomic-embed';

/** The models the fuzzed router has: a chat model with a vision projector, and an embedder. */
export const fuzzRecords: ModelRecord[] = [
  modelRecordFixture({
    projector: { fileId: 'p', name: 'p.gguf', size: 1, chunkSize: 1, chunks: 1, complete: true },
  }),
  embedderRecordFixture(embedder),
];
const image =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const tool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

/**
 * A valid body of each POST route, with the fields real clients send: the fuzzer replaces, drops
 * and adds fields of these, so that what it sends gets past the first check and into the parsing
 * of every field.
 */
const validBodies: Record<string, Record<string, unknown>> = {
  '/v1/chat/completions': {
    model,
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
    ],
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: 4,
    temperature: 0.5,
    top_p: 0.9,
    stop: ['\n'],
    tools: [tool],
    tool_choice: 'auto',
    response_format: { type: 'json_object' },
    logprobs: true,
    top_logprobs: 2,
    seed: 1,
  },
  '/v1/completions': {
    model,
    prompt: 'Once',
    max_tokens: 4,
    stream: false,
    logprobs: 1,
    echo: false,
  },
  '/v1/responses': {
    model,
    input: [{ role: 'user', content: [{ type: 'input_text', text: 'Hi' }] }],
    instructions: 'Be brief.',
    max_output_tokens: 4,
    stream: true,
    tools: [{ type: 'function', name: 'get_weather', parameters: tool.function.parameters }],
    text: { format: { type: 'text' } },
    store: false,
  },
  '/v1/messages': {
    model,
    max_tokens: 4,
    system: 'Be brief.',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Hi' },
          {
            type: 'image',
            source: { type: 'base64', media_type: 'image/png', data: image.split(',')[1] },
          },
        ],
      },
    ],
    stream: true,
    tools: [{ name: 'get_weather', input_schema: tool.function.parameters }],
    thinking: { type: 'disabled' },
  },
  '/v1/messages/count_tokens': { model, messages: [{ role: 'user', content: 'Hi' }] },
  '/v1/embeddings': { model: embedder, input: ['a', 'b'], encoding_format: 'float' },
  '/api/generate': {
    model,
    prompt: 'Hi',
    stream: true,
    options: { num_predict: 4, temperature: 0 },
    format: 'json',
    images: [image.split(',')[1]],
  },
  '/api/chat': {
    model,
    messages: [{ role: 'user', content: 'Hi', images: [] }],
    stream: false,
    options: { num_predict: 4, num_ctx: 512, stop: ['x'] },
    tools: [tool],
    think: false,
    keep_alive: '5m',
  },
  '/api/show': { model, verbose: true },
  '/api/delete': { model: 'not-stored' },
  '/api/pull': { model: 'hf.co/org/missing:Q4_K_M', stream: false },
  '/api/create': {
    model: 'fuzzed',
    from: model,
    system: 'Hi',
    parameters: { temperature: 0.2 },
    template: '{{ .Prompt }}',
  },
  '/api/copy': { source: model, destination: 'copied' },
  '/api/embed': { model: embedder, input: 'a', truncate: true },
  '/api/embeddings': { model: embedder, prompt: 'a' },
};

/** A string a client could send: plain, empty, long, odd Unicode, lone surrogates, control bytes. */
const oddString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 64 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\ud800',
    '\udfff',
    'a\ud83d',
    '\u202e',
    '\ufeff',
    '💥'.repeat(3),
  ),
  fc.constantFrom(
    model,
    'hf.co/org/repo:Q4_K_M',
    '../../etc/passwd',
    'a'.repeat(400),
    '{{ .Prompt }}',
  ),
  fc.integer({ min: 1000, max: 200_000 }).map((n) => 'x'.repeat(n)),
);

/** A number at the edges: zero, negatives, huge, fractions, beyond 2^53. */
const oddNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, -1, 1e308, -1e308, 2 ** 53 + 1, 2 ** 31, 0.5, 4.2e-320),
);

/** JSON nested `depth` deep, as arrays or objects. */
const nested = (depth: number, object: boolean) =>
  object
    ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
    : `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** Any JSON value, odd strings and numbers included, moderately deep and wide. */
const anyValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    oddString,
    oddNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(oddString, tie('value'), { maxKeys: 5 }),
  ),
})).value;

/** `body` with one field (at any depth, chosen by `path`) replaced by `value`, or dropped. */
function mutate(body: unknown, path: number[], value: unknown, drop: boolean): unknown {
  if (typeof body !== 'object' || body === null || path.length === 0) return value;
  const entries = Array.isArray(body) ? [...body.entries()] : Object.entries(body);
  if (entries.length === 0) return value;
  const [index, ...rest] = path;
  const at = (index ?? 0) % entries.length;
  const [key, child] = entries[at]!;
  const copy = (Array.isArray(body) ? [...body] : { ...body }) as Record<string | number, unknown>;
  if (rest.length === 0 && drop && !Array.isArray(body)) {
    delete copy[key];
    return copy;
  }
  copy[key] = rest.length === 0 ? value : mutate(child, rest, value, drop);
  return copy;
}

/** A JSON body for `path`: its valid body mutated, arbitrary JSON, or text that is not JSON. */
function bodyFor(path: string): fc.Arbitrary<Uint8Array> {
  const valid = validBodies[path] ?? {};
  const encode = (text: string) => new TextEncoder().encode(text);
  return fc.oneof(
    {
      weight: 5,
      arbitrary: fc
        .tuple(
          fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
          anyValue,
          fc.boolean(),
          fc.dictionary(oddString, anyValue, { maxKeys: 2 }),
        )
        .map(([where, value, drop, extra]) =>
          encode(JSON.stringify({ ...(mutate(valid, where, value, drop) as object), ...extra })),
        ),
    },
    { weight: 1, arbitrary: fc.constant(encode(JSON.stringify(valid))) },
    { weight: 2, arbitrary: anyValue.map((value) => encode(JSON.stringify(value) ?? 'null')) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 100, max: 200_000 }), fc.boolean())
        .map(([depth, object]) => encode(nested(depth, object))),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 256 }) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          '',
          '{',
          '{"model":',
          '\uFEFF{}',
          '{"model":"\\ud800"}',
          'null',
          '[]',
          '"x"',
          '{"__proto__":{"x":1}}',
        )
        .map(encode),
    },
  );
}

const headerName = fc.constantFrom(
  'content-type',
  'accept',
  'user-agent',
  'x-request-id',
  'openai-beta',
  'anthropic-version',
  'anthropic-beta',
  'x-stainless-os',
  'accept-encoding',
  'x-fuzz',
);
const headerValue = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', maxLength: 40 }).map((value) => value.replace(/[\r\n]/g, '')),
  fc.constantFrom(
    'application/json',
    'text/plain',
    'application/x-ndjson',
    'text/event-stream',
    '*/*',
    'gzip, br',
    'x'.repeat(2000),
  ),
);

/** Headers a client could send; never framing (Content-Length, Transfer-Encoding) or Host. */
const headers = fc.dictionary(headerName, headerValue, { maxKeys: 4 });

/** A route path with its parameter filled, and sometimes a query or a path nearby. */
function pathFor(routePath: string): fc.Arbitrary<string> {
  const filled = routePath.includes('{id}')
    ? fc
        .oneof(
          fc.constantFrom(model, 'resp_1', 'sha256:' + 'a'.repeat(64), 'sha256:zz'),
          fc.webSegment(),
        )
        .map((id) => routePath.replace('{id}', encodeURIComponent(id)))
    : fc.constant(routePath);
  return fc
    .tuple(filled, fc.option(fc.webQueryParameters(), { freq: 4 }), fc.nat(9))
    .map(
      ([path, query, nearby]) => `${nearby === 0 ? `${path}/x` : path}${query ? `?${query}` : ''}`,
    );
}

/** Requests to every route: the route's own method mostly, sometimes another one. */
export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc
  .constantFrom(...routes)
  .chain((route) =>
    fc.record({
      route: fc.constant(`${route.method} ${route.path}`),
      method: fc.oneof(
        { weight: 6, arbitrary: fc.constant(route.method) },
        { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'HEAD', 'PATCH') },
      ),
      path: pathFor(route.path),
      headers,
      body: bodyFor(route.path),
    }),
  )
  .map((request) => ({
    ...request,
    body: request.method === 'GET' || request.method === 'HEAD' ? undefined : request.body,
  }));

/** Messages that are a JavaScript exception escaping, never one of lmtab's own. */
const leakedException =
  /Maximum call stack|Cannot read propert|is not a function|is not iterable|undefined is not|Invalid typed array length|Cannot convert|out of memory/i;

/**
 * What is wrong with an answer, or undefined when it is right: a status below 500, and for an
 * error the shape of the path's protocol (OpenAI's, Anthropic's, Ollama's) with a message of
 * lmtab's own; streams end without an error event that is a 5xx in disguise.
 */
export function answerProblem(
  request: FuzzRequest,
  status: number,
  contentType: string,
  text: string,
): string | undefined {
  const pathname = new URL(request.path, 'http://fuzz').pathname;
  if (status >= 500) return `status ${status}: ${text.slice(0, 300)}`;
  if (leakedException.test(text)) return `a JavaScript exception escaped: ${text.slice(0, 300)}`;
  if (request.method === 'HEAD' || status < 400) {
    if (contentType.startsWith('text/event-stream') && /"code":"engine_failure"/.test(text)) {
      return `a stream failed with engine_failure: ${text.slice(-300)}`;
    }
    return undefined;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `status ${status} without a JSON error body: ${text.slice(0, 200)}`;
  }
  const error = (body as { error?: unknown; type?: unknown }).error;
  if (pathname === '/api' || pathname.startsWith('/api/')) {
    return typeof error === 'string' && error !== ''
      ? undefined
      : `not Ollama's {error}: ${text.slice(0, 200)}`;
  }
  if (pathname === '/v1/messages' || pathname.startsWith('/v1/messages/')) {
    const shaped =
      (body as { type?: unknown }).type === 'error' &&
      typeof (error as { type?: unknown })?.type === 'string' &&
      typeof (error as { message?: unknown })?.message === 'string';
    return shaped ? undefined : `not Anthropic's error shape: ${text.slice(0, 200)}`;
  }
  const shaped =
    typeof (error as { message?: unknown })?.message === 'string' &&
    typeof (error as { type?: unknown })?.type === 'string';
  return shaped ? undefined : `not OpenAI's error shape: ${text.slice(0, 200)}`;
}
