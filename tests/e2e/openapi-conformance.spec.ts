import { expect, test, type Page } from '@playwright/test';
import {
  asSpecAnswer,
  openApiValidator,
  readVendoredSpec,
  type Answer,
} from '../../src/api/testing/openapi-validator.js';
import type { Relay } from '../../src/relay/index.js';
import { readNdjson, readSseJson } from '../../src/streams/index.js';
import { testPorts } from '../support/test-ports.js';
import { openEngineTab, startRelay, type EngineTab } from './support/relay.js';

// The real engine's answers, read as clients read them through both transports (fetch in the page,
// answered by the service worker; Node's fetch through the relay), checked against the official
// OpenAPI descriptions: OpenAI's openapi.json for /v1, Ollama's docs/openapi.yaml for /api.

const chatModel = 'tiny-lfm2-thinking';
const embedModel = 'tiny-lfm2-embed';
const weather = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
};
const messages = [{ role: 'user', content: 'What is the weather in Oslo?' }];
const chatTool = { type: 'function', function: { name: 'weather', parameters: weather } };
const responsesTool = { type: 'function', name: 'weather', parameters: weather, strict: true };
const few = { temperature: 0, max_tokens: 8 };
const forcedChat = {
  model: chatModel,
  messages,
  max_tokens: 64,
  tools: [chatTool],
  tool_choice: 'required',
};

/** One request as a client sends it. */
interface Call {
  method: 'GET' | 'POST';
  path: string;
  body?: object;
}

const calls: Call[] = [
  {
    method: 'POST',
    path: '/v1/chat/completions',
    body: { model: chatModel, messages, ...few, logprobs: true, top_logprobs: 2 },
  },
  {
    method: 'POST',
    path: '/v1/chat/completions',
    body: {
      model: chatModel,
      messages,
      ...few,
      stream: true,
      stream_options: { include_usage: true },
    },
  },
  {
    method: 'POST',
    path: '/v1/chat/completions',
    body: forcedChat,
  },
  {
    method: 'POST',
    path: '/v1/chat/completions',
    body: { ...forcedChat, stream: true },
  },
  {
    method: 'POST',
    path: '/v1/completions',
    body: { model: chatModel, prompt: 'Once', ...few, logprobs: 2 },
  },
  {
    method: 'POST',
    path: '/v1/completions',
    body: { model: chatModel, prompt: 'Once', ...few, stream: true },
  },
  {
    method: 'POST',
    path: '/v1/embeddings',
    body: { model: embedModel, input: ['a sea', 'a boat'] },
  },
  { method: 'GET', path: '/v1/models' },
  { method: 'GET', path: `/v1/models/${chatModel}` },
  {
    method: 'POST',
    path: '/v1/responses',
    body: { model: chatModel, input: 'Hi', temperature: 0, max_output_tokens: 8 },
  },
  {
    method: 'POST',
    path: '/v1/responses',
    body: { model: chatModel, input: 'Hi', temperature: 0, max_output_tokens: 8, stream: true },
  },
  {
    method: 'POST',
    path: '/v1/responses',
    body: {
      model: chatModel,
      input: 'Weather in Oslo?',
      max_output_tokens: 64,
      tools: [responsesTool],
      tool_choice: 'required',
      stream: true,
    },
  },
  {
    method: 'POST',
    path: '/api/chat',
    body: {
      model: chatModel,
      messages,
      stream: false,
      options: { num_predict: 8, temperature: 0 },
    },
  },
  {
    method: 'POST',
    path: '/api/chat',
    body: { model: chatModel, messages, think: true, options: { num_predict: 8, temperature: 0 } },
  },
  {
    method: 'POST',
    path: '/api/chat',
    body: {
      model: chatModel,
      messages,
      tools: [chatTool],
      tool_choice: 'required',
      stream: false,
      options: { num_predict: 64 },
    },
  },
  {
    method: 'POST',
    path: '/api/generate',
    body: {
      model: chatModel,
      prompt: 'Once',
      stream: false,
      options: { num_predict: 8, temperature: 0 },
    },
  },
  {
    method: 'POST',
    path: '/api/generate',
    body: { model: chatModel, prompt: 'Once', options: { num_predict: 8, temperature: 0 } },
  },
  { method: 'POST', path: '/api/embed', body: { model: embedModel, input: ['a sea', 'a boat'] } },
  { method: 'GET', path: '/api/tags' },
  { method: 'POST', path: '/api/show', body: { model: chatModel } },
  { method: 'GET', path: '/api/ps' },
  { method: 'GET', path: '/api/version' },
];

/** What came back for a call: the status, the content type and the raw body. */
interface Raw {
  status: number;
  contentType: string;
  text: string;
}

/** Every JSON value of a raw answer (the body, each SSE event, each NDJSON line) as an Answer. */
async function answersOf(call: Call, raw: Raw): Promise<Answer[]> {
  const at = `${call.method} ${call.path}`;
  expect(raw.status, `${at}: ${raw.text.slice(0, 300)}`).toBe(200);
  const body = new Response(raw.text).body!;
  const base = { method: call.method, path: call.path, status: raw.status };
  const streamed = {
    'text/event-stream': readSseJson,
    'application/x-ndjson': readNdjson,
  } as const;
  for (const [contentType, read] of Object.entries(streamed)) {
    if (!raw.contentType.startsWith(contentType)) continue;
    const answers: Answer[] = [];
    for await (const value of read(body)) {
      answers.push({ ...base, contentType: contentType as Answer['contentType'], value });
    }
    return answers;
  }
  expect(raw.contentType, at).toMatch(/^application\/json/);
  return [{ ...base, contentType: 'application/json', value: JSON.parse(raw.text) }];
}

const openai = openApiValidator(readVendoredSpec('openai'), { serverPrefix: '/v1' });
const ollama = openApiValidator(readVendoredSpec('ollama'));

/** The spec's complaints about every answer of every call. */
async function complaints(
  send: (call: Call) => Promise<Raw>,
): Promise<{ checked: number; problems: string[] }> {
  let checked = 0;
  const problems: string[] = [];
  for (const call of calls) {
    for (const answer of await answersOf(call, await send(call))) {
      checked++;
      const check = call.path.startsWith('/v1/') ? openai : ollama;
      problems.push(...check(asSpecAnswer(answer)));
    }
  }
  return { checked, problems };
}

/** Sends a call with fetch in the page: the service worker answers from the tab's engine. */
function inPage(page: Page) {
  return (call: Call): Promise<Raw> =>
    page.evaluate(async ({ method, path, body }) => {
      const response = await fetch(path, {
        method,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return {
        status: response.status,
        contentType: response.headers.get('content-type') ?? '',
        text: await response.text(),
      };
    }, call);
}

/** Sends a call with Node's fetch through the relay. */
function throughRelay(relay: Relay) {
  return async ({ method, path, body }: Call): Promise<Raw> => {
    const response = await fetch(`${relay.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      text: await response.text(),
    };
  };
}

test.describe.serial('the real engine answers as the official OpenAPI specs describe', () => {
  test.describe.configure({ timeout: 240_000 });
  let relay: Relay;
  let tab: EngineTab;

  test.beforeAll(async ({ browser }) => {
    relay = await startRelay(testPorts.relayConformance);
    tab = await openEngineTab(browser, relay, [
      { file: `${chatModel}.gguf` },
      { file: `${embedModel}.gguf` },
    ]);
  });

  test.afterAll(async () => {
    await tab?.context.close();
    await relay?.close();
  });

  test('in the page, through the service worker', async () => {
    const { checked, problems } = await complaints(inPage(tab.page));
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(calls.length);
  });

  test('through the relay', async () => {
    const { checked, problems } = await complaints(throughRelay(relay));
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(calls.length);
  });
});
