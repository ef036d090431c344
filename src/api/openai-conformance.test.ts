import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { GenerateRequest } from '../engine/index.js';
import { modelRecordFixture } from './testing/model-record-fixture.js';
import { readChunks, routerHarness } from './testing/router-harness.js';

// The bodies and SSE events lmtab answers on /v1, checked against the types of the official
// `openai` SDK, which its makers generate from OpenAI's OpenAPI spec: each sample becomes
// `<json> satisfies OpenAI.Type` and the TypeScript compiler must accept it. Fields the SDK does
// not know are allowed (as in the spec); a missing required field or a wrong type is not.

const embedder = modelRecordFixture({
  id: 'bge-small',
  gguf: {
    architecture: 'bert',
    parameterCount: 33_000_000,
    contextLength: 512,
    embeddingLength: 8,
    quantization: 'F16',
    fileKind: 'model',
    poolingType: 2,
  },
});
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

/** One sample and the SDK type it must satisfy. */
type Sample = [type: string, value: unknown];

async function collect(): Promise<Sample[]> {
  const { send, get } = routerHarness({ records: [modelRecordFixture(), embedder], script });
  const samples: Sample[] = [];
  const json = async (type: string, response: Response | Promise<Response>) => {
    const answer = await response;
    expect(answer.status, type).toBe(200);
    samples.push([type, await answer.json()]);
  };
  const sse = async (type: string, response: Response | Promise<Response>) => {
    const text = (await readChunks(await response)).join('');
    for (const block of text.split('\n\n')) {
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (data !== undefined && data !== '[DONE]') samples.push([type, JSON.parse(data)]);
    }
  };
  const chat = { model: 'lfm2-350m', messages: [{ role: 'user', content: 'Hi' }] };
  const tools = [{ type: 'function', function: { name: 'weather', parameters: weather } }];
  await json(
    'ChatCompletion',
    send('/v1/chat/completions', { ...chat, logprobs: true, top_logprobs: 1 }),
  );
  await json('ChatCompletion', send('/v1/chat/completions', { ...chat, tools }));
  await sse(
    'ChatCompletionChunk',
    send('/v1/chat/completions', {
      ...chat,
      stream: true,
      logprobs: true,
      top_logprobs: 1,
      stream_options: { include_usage: true },
    }),
  );
  await sse('ChatCompletionChunk', send('/v1/chat/completions', { ...chat, tools, stream: true }));
  const completion = { model: 'lfm2-350m', prompt: 'Hi' };
  await json('Completion', send('/v1/completions', { ...completion, logprobs: 2 }));
  await sse('CompletionChunk', send('/v1/completions', { ...completion, stream: true }));
  await json(
    'CreateEmbeddingResponse',
    send('/v1/embeddings', { model: 'bge-small', input: ['a', 'b'] }),
  );
  await json('ModelsList', get('/v1/models'));
  await json('Model', get('/v1/models/lfm2-350m'));
  const responses = { model: 'lfm2-350m', input: 'Hi' };
  const responseTools = [{ type: 'function', name: 'weather', parameters: weather, strict: false }];
  await json('Response', send('/v1/responses', responses));
  await json('Response', send('/v1/responses', { ...responses, tools: responseTools }));
  await sse('ResponseStreamEvent', send('/v1/responses', { ...responses, stream: true }));
  await sse(
    'ResponseStreamEvent',
    send('/v1/responses', { ...responses, tools: responseTools, stream: true }),
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
    ...samples.map(([type, value], i) => {
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

describe('/v1 answers against the official openai SDK types', () => {
  it('every JSON body and SSE event of chat, completions, embeddings, models and responses', async () => {
    const samples = await collect();
    const types = new Set(samples.map(([type]) => type));
    expect([...types].sort()).toEqual([
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
    expect(typeErrors(samples)).toEqual([]);
  }, 60_000);
});
