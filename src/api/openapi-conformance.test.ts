import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { GenerateRequest } from '../engine/index.js';
import { readNdjson, readSseJson } from '../streams/index.js';
import { embedderRecordFixture, modelRecordFixture } from './testing/model-record-fixture.js';
import {
  asSpecAnswer,
  openApiValidator,
  readVendoredSpec,
  type Answer,
} from './testing/openapi-validator.js';
import { testWav } from './testing/audio-samples.js';
import { routerHarness } from './testing/router-harness.js';

// The bodies, SSE events and NDJSON lines lmtab answers, checked two ways: against the official
// OpenAPI descriptions (OpenAI's openapi.json for /v1, Ollama's docs/openapi.yaml for /api,
// vendored in tests/fixtures/openapi), and for /v1 also against the types of the official `openai`
// SDK, which its makers generate from that spec (each sample becomes `<json> satisfies
// OpenAI.Type` and the TypeScript compiler must accept it). Fields a spec does not name are allowed,
// as the specs allow them; a missing required field, a wrong type or a value outside an enum is not.

const embedder = embedderRecordFixture('bge-small');
const weather = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
};

/** The fake engine calls the tool when there is one, and thinks first when asked to. */
function script(request: GenerateRequest) {
  if (request.tools !== undefined && request.toolChoice !== 'none') {
    return {
      events: [
        { type: 'tool_call' as const, index: 0, id: 'call_1', name: 'weather', argumentsDelta: '' },
        { type: 'tool_call' as const, index: 0, argumentsDelta: '{"city":"Oslo"}' },
      ],
      finishReason: 'tool_calls' as const,
    };
  }
  const token = (text: string) => ({
    type: 'token' as const,
    text,
    ...(request.logprobs === undefined
      ? {}
      : {
          logprobs: [
            {
              token: text,
              logprob: -0.5,
              bytes: [...new TextEncoder().encode(text)],
              top: [{ token: text, logprob: -0.5, bytes: [...new TextEncoder().encode(text)] }],
            },
          ],
        }),
  });
  return { events: [{ type: 'reasoning' as const, text: 'Hm.' }, token('Hello'), token('!')] };
}

/** One answer and the SDK type it must satisfy. */
interface Sample {
  type: string;
  answer: Answer;
}

/** A request sent through the router: its method and path, and the answer. */
interface Sent {
  method: string;
  path: string;
  response: Promise<Response>;
}

/** Collects answers: whole JSON bodies, each SSE event, each NDJSON line. */
function collector() {
  const samples: Sample[] = [];
  const add =
    (type: string, sent: Sent, status: number, contentType: Answer['contentType']) =>
    (value: unknown) =>
      samples.push({
        type,
        answer: { method: sent.method, path: sent.path, status, contentType, value },
      });
  return {
    samples,
    async json(type: string, sent: Sent) {
      const answer = await sent.response;
      expect(answer.status, `${sent.method} ${sent.path}`).toBe(200);
      add(type, sent, answer.status, 'application/json')(await answer.json());
    },
    async sse(type: string, sent: Sent) {
      const answer = await sent.response;
      expect(answer.headers.get('content-type')).toMatch(/^text\/event-stream/);
      for await (const value of readSseJson(answer.body!))
        add(type, sent, answer.status, 'text/event-stream')(value);
    },
    async ndjson(type: string, sent: Sent) {
      const answer = await sent.response;
      expect(answer.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
      for await (const value of readNdjson(answer.body!))
        add(type, sent, answer.status, 'application/x-ndjson')(value);
    },
  };
}

function harness() {
  const { send, get, sendForm } = routerHarness({
    records: [modelRecordFixture(), embedder],
    script,
  });
  return {
    form: (path: string, body: FormData): Sent => ({
      method: 'POST',
      path,
      response: sendForm(path, body),
    }),
    post: (path: string, body: unknown): Sent => ({
      method: 'POST',
      path,
      response: send(path, body),
    }),
    get: (path: string): Sent => ({ method: 'GET', path, response: get(path) }),
  };
}

/** A transcription upload: a one-second WAV and `fields`. */
function transcription(fields: Record<string, string> = {}): FormData {
  const body = new FormData();
  body.append('file', new Blob([testWav(16_000) as BlobPart]), 'clip.wav');
  body.append('model', 'lfm2-350m');
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  return body;
}

async function collectV1(): Promise<Sample[]> {
  const { post, get, form } = harness();
  const { samples, json, sse } = collector();
  const chat = { model: 'lfm2-350m', messages: [{ role: 'user', content: 'Hi' }] };
  const tools = [{ type: 'function', function: { name: 'weather', parameters: weather } }];
  await json(
    'ChatCompletion',
    post('/v1/chat/completions', { ...chat, logprobs: true, top_logprobs: 1 }),
  );
  await json('ChatCompletion', post('/v1/chat/completions', { ...chat, tools }));
  await sse(
    'ChatCompletionChunk',
    post('/v1/chat/completions', {
      ...chat,
      stream: true,
      logprobs: true,
      top_logprobs: 1,
      stream_options: { include_usage: true },
    }),
  );
  await sse('ChatCompletionChunk', post('/v1/chat/completions', { ...chat, tools, stream: true }));
  const completion = { model: 'lfm2-350m', prompt: 'Hi' };
  await json('Completion', post('/v1/completions', { ...completion, logprobs: 2 }));
  await sse('CompletionChunk', post('/v1/completions', { ...completion, stream: true }));
  await json(
    'CreateEmbeddingResponse',
    post('/v1/embeddings', { model: 'bge-small', input: ['a', 'b'] }),
  );
  await json('ModelsList', get('/v1/models'));
  await json('Model', get('/v1/models/lfm2-350m'));
  const responses = { model: 'lfm2-350m', input: 'Hi' };
  const responseTools = [{ type: 'function', name: 'weather', parameters: weather, strict: false }];
  await json('Response', post('/v1/responses', responses));
  await json('Response', post('/v1/responses', { ...responses, tools: responseTools }));
  await sse('ResponseStreamEvent', post('/v1/responses', { ...responses, stream: true }));
  await sse(
    'ResponseStreamEvent',
    post('/v1/responses', { ...responses, tools: responseTools, stream: true }),
  );
  const path = '/v1/audio/transcriptions';
  await json('Audio.Transcription', form(path, transcription()));
  await json(
    'Audio.TranscriptionVerbose',
    form(path, transcription({ response_format: 'verbose_json', language: 'en' })),
  );
  await sse('Audio.TranscriptionStreamEvent', form(path, transcription({ stream: 'true' })));
  return samples;
}

async function collectOllama(): Promise<Sample[]> {
  const { post, get } = harness();
  const { samples, json, ndjson } = collector();
  const chat = { model: 'lfm2-350m', messages: [{ role: 'user', content: 'Hi' }] };
  const tools = [{ type: 'function', function: { name: 'weather', parameters: weather } }];
  await json('chat', post('/api/chat', { ...chat, stream: false }));
  await json('chat', post('/api/chat', { ...chat, tools, stream: false }));
  await json(
    'chat',
    post('/api/chat', { ...chat, think: true, logprobs: true, top_logprobs: 1, stream: false }),
  );
  await ndjson('chat', post('/api/chat', { ...chat, think: true }));
  await ndjson('chat', post('/api/chat', { ...chat, tools }));
  const generate = { model: 'lfm2-350m', prompt: 'Hi' };
  await json('generate', post('/api/generate', { ...generate, stream: false }));
  await json('generate', post('/api/generate', { ...generate, logprobs: true, stream: false }));
  await ndjson('generate', post('/api/generate', { ...generate, think: true }));
  await json('embed', post('/api/embed', { model: 'bge-small', input: ['a', 'b'] }));
  await json('tags', get('/api/tags'));
  await json('show', post('/api/show', { model: 'lfm2-350m' }));
  await json('ps', get('/api/ps'));
  await json('version', get('/api/version'));
  await json(
    'create',
    post('/api/create', { model: 'custom', from: 'lfm2-350m', system: 'Be brief.', stream: false }),
  );
  await ndjson(
    'create',
    post('/api/create', { model: 'custom2', from: 'lfm2-350m', system: 'Be brief.' }),
  );
  return samples;
}

/** TypeScript's complaints about the samples, less "not a known property" (extra fields). */
function typeErrors(samples: Sample[]): string[] {
  const source = [
    "import type OpenAI from 'openai';",
    'type ModelsList = { object: "list"; data: OpenAI.Model[] };',
    // The SDK types a streamed completion's chunks as whole completions; OpenAI sends
    // `finish_reason: null` in all but the last, as lmtab does.
    'type CompletionChunk = Omit<OpenAI.Completion, "choices"> & {',
    '  choices: (Omit<OpenAI.CompletionChoice, "finish_reason"> & {',
    '    finish_reason: OpenAI.CompletionChoice["finish_reason"] | null;',
    '  })[];',
    '};',
    'type Response = OpenAI.Responses.Response;',
    'type ResponseStreamEvent = OpenAI.Responses.ResponseStreamEvent;',
    ...samples.map(({ type, answer: { value } }, i) => {
      const local = ['ModelsList', 'CompletionChunk', 'Response', 'ResponseStreamEvent'];
      const sdkType = local.includes(type) ? type : `OpenAI.${type}`;
      return `export const s${i} = ${JSON.stringify(value)} satisfies ${sdkType};`;
    }),
  ].join('\n');
  // Beside the sources, so that `openai` resolves from the project's node_modules.
  const file = join(import.meta.dirname, 'openai-conformance.samples.ts');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => (name === file ? source : readFile(name));
  host.fileExists = (name) => name === file || ts.sys.fileExists(name);
  host.getSourceFile = (name, version) =>
    name === file ? ts.createSourceFile(name, source, version) : getSourceFile(name, version);
  const program = ts.createProgram([file], options, host);
  const lines = source.split('\n');
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.code !== 2353 && d.code !== 2561)
    .map((d) => {
      const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      if (d.file === undefined || d.start === undefined) return text;
      const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
      const sample = lines[line] ?? '';
      return `${text}\n  at: ${sample.slice(character, character + 80)}\n  in: ${sample.slice(0, 200)}`;
    });
}

describe('/v1 answers against the official OpenAI spec and SDK types', () => {
  it('every JSON body and SSE event of chat, completions, embeddings, models, responses and transcriptions', async () => {
    const samples = await collectV1();
    const types = new Set(samples.map(({ type }) => type));
    expect([...types].sort()).toEqual([
      'Audio.Transcription',
      'Audio.TranscriptionStreamEvent',
      'Audio.TranscriptionVerbose',
      'ChatCompletion',
      'ChatCompletionChunk',
      'Completion',
      'CompletionChunk',
      'CreateEmbeddingResponse',
      'Model',
      'ModelsList',
      'Response',
      'ResponseStreamEvent',
    ]);
    const check = openApiValidator(readVendoredSpec('openai'), { serverPrefix: '/v1' });
    expect(samples.flatMap((sample) => check(asSpecAnswer(sample.answer)))).toEqual([]);
    expect(typeErrors(samples)).toEqual([]);
  }, 60_000);

  it('the checker refuses what the spec refuses', () => {
    const check = openApiValidator(readVendoredSpec('openai'), { serverPrefix: '/v1' });
    const answer = (value: unknown): Answer => ({
      method: 'POST',
      path: '/v1/embeddings',
      status: 200,
      contentType: 'application/json',
      value,
    });
    const valid = {
      object: 'list',
      model: 'bge-small',
      data: [{ object: 'embedding', index: 0, embedding: [0.5] }],
      usage: { prompt_tokens: 1, total_tokens: 1 },
    };
    expect(check(answer(valid))).toEqual([]);
    expect(check(answer({ ...valid, usage: undefined })).join('\n')).toMatch(/usage/);
    expect(check(answer({ ...valid, object: 'embedding' })).join('\n')).toMatch(/object/);
  });
});

describe("/api answers against Ollama's docs/openapi.yaml", () => {
  it('every JSON body and NDJSON line of chat, generate, embed, tags, show, ps, version and create', async () => {
    const samples = await collectOllama();
    expect(samples.length).toBeGreaterThan(20);
    const check = openApiValidator(readVendoredSpec('ollama'));
    expect(samples.flatMap(({ answer }) => check(answer))).toEqual([]);
  }, 60_000);
});
