import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { expect, test, type Page } from '@playwright/test';
import { embed, embedMany } from 'ai';
import { Ollama } from 'ollama';
import OpenAI, { BadRequestError } from 'openai';
import type { Relay } from '../../src/relay/index.js';
import { testPorts } from '../support/test-ports.js';
import { bundleForPage } from './support/app.js';
import { openEngineTab, startRelay, type EngineTab } from './support/relay.js';

const dimension = 64;
const texts = ['the sea at dawn', 'a cat and a dog', 'hello world', 'the sun is in the sea'];

/** What each client answered, in plain arrays, so both transports are checked alike. */
interface ClientAnswers {
  openAiOne: number[];
  openAiMany: number[][];
  openAiBase64: number[][];
  aiOne: number[];
  aiMany: number[][];
  ollamaOne: number[][];
  ollamaMany: number[][];
  ollamaPromptEvalCount: number;
}

/** The three client libraries as page code uses them: `window.embedClients(baseUrl, model)`. */
const bundleClients = () =>
  bundleForPage([
    "import OpenAI from 'openai';",
    "import { embed, embedMany } from 'ai';",
    "import { createOpenAICompatible } from '@ai-sdk/openai-compatible';",
    "import { Ollama } from 'ollama/browser';",
    'window.embedClients = { OpenAI, embed, embedMany, createOpenAICompatible, Ollama };',
  ]);

/** Every client against one base URL (the SDKs are the same objects in the page and in Node). */
async function useClients(
  clients: {
    OpenAI: typeof OpenAI;
    embed: typeof embed;
    embedMany: typeof embedMany;
    createOpenAICompatible: typeof createOpenAICompatible;
    Ollama: typeof Ollama;
  },
  base: string,
  model: string,
  texts: string[],
): Promise<ClientAnswers> {
  const openai = new clients.OpenAI({
    baseURL: `${base}/v1`,
    apiKey: 'any',
    maxRetries: 0,
    dangerouslyAllowBrowser: true,
  });
  const one = await openai.embeddings.create({ model, input: texts[2]!, encoding_format: 'float' });
  const many = await openai.embeddings.create({ model, input: texts, encoding_format: 'float' });
  const base64 = await openai.embeddings.create({ model, input: texts });
  const provider = clients.createOpenAICompatible({ name: 'lmtab', baseURL: `${base}/v1` });
  const embeddingModel = provider.embeddingModel(model);
  const aiOne = await clients.embed({ model: embeddingModel, value: texts[2]!, maxRetries: 0 });
  const aiMany = await clients.embedMany({ model: embeddingModel, values: texts, maxRetries: 0 });
  const ollama = new clients.Ollama({ host: base });
  const ollamaOne = await ollama.embed({ model, input: texts[2]! });
  const ollamaMany = await ollama.embed({ model, input: texts, truncate: true });
  return {
    openAiOne: one.data[0]!.embedding,
    openAiMany: many.data.map((d) => d.embedding),
    openAiBase64: base64.data.map((d) => d.embedding),
    aiOne: aiOne.embedding,
    aiMany: aiMany.embeddings,
    ollamaOne: ollamaOne.embeddings,
    ollamaMany: ollamaMany.embeddings,
    ollamaPromptEvalCount: ollamaMany.prompt_eval_count,
  };
}

function expectSameVector(actual: number[], expected: number[]): void {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((value, i) => expect(value).toBeCloseTo(expected[i]!, 5));
}

function checkAnswers(answers: ClientAnswers): void {
  const reference = answers.openAiMany;
  expect(reference).toHaveLength(texts.length);
  for (const vector of reference) {
    expect(vector).toHaveLength(dimension);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 4);
  }
  expect(reference[0]![0]).not.toBeCloseTo(reference[1]![0]!, 6);
  // The same text alone and third in an array: the same vector, whichever client asked.
  expectSameVector(answers.openAiOne, reference[2]!);
  expectSameVector(answers.aiOne, reference[2]!);
  expect(answers.ollamaOne).toHaveLength(1);
  expectSameVector(answers.ollamaOne[0]!, reference[2]!);
  for (const many of [answers.openAiBase64, answers.aiMany, answers.ollamaMany]) {
    expect(many).toHaveLength(texts.length);
    many.forEach((vector, i) => expectSameVector(vector, reference[i]!));
  }
  expect(answers.ollamaPromptEvalCount).toBeGreaterThan(texts.length);
}

async function embedInPage(page: Page, model: string): Promise<ClientAnswers> {
  await page.evaluate(await bundleClients());
  return page.evaluate(
    ([model, texts, source]) => {
      const run = new Function(`return (${source})`)() as typeof useClients;
      const clients = (window as unknown as { embedClients: Parameters<typeof useClients>[0] })
        .embedClients;
      return run(clients, location.origin, model, texts);
    },
    [model, texts, useClients.toString()] as const,
  );
}

test.describe('embedding clients', () => {
  let relay: Relay;
  let tab: EngineTab;

  test.beforeAll(async ({ browser }) => {
    relay = await startRelay(testPorts.relayEmbed);
    tab = await openEngineTab(browser, relay, [
      { file: 'tiny-bert.gguf' },
      { file: 'tiny-lfm2.gguf' },
    ]);
  });

  test.afterAll(async () => {
    await tab?.context.close();
    await relay?.close();
  });

  test('openai, the Vercel AI SDK and ollama in the page, through the service worker', async () => {
    checkAnswers(await embedInPage(tab.page, 'tiny-bert'));
  });

  test('openai, the Vercel AI SDK and ollama from Node, through the relay', async () => {
    const answers = await useClients(
      { OpenAI, embed, embedMany, createOpenAICompatible, Ollama },
      relay.url,
      'tiny-bert',
      texts,
    );
    checkAnswers(answers);
  });

  test('bad inputs through the relay, in each protocol’s error shape', async () => {
    const openai = new OpenAI({ baseURL: `${relay.url}/v1`, apiKey: 'any', maxRetries: 0 });
    const chatModel = await openai.embeddings
      .create({ model: 'tiny-lfm2', input: 'hello' })
      .catch((error: unknown) => error);
    expect(chatModel).toBeInstanceOf(BadRequestError);
    expect((chatModel as BadRequestError).param).toBe('model');
    expect((chatModel as BadRequestError).message).toContain('cannot embed');

    const dimensions = await openai.embeddings
      .create({ model: 'tiny-bert', input: 'hello', dimensions: 16 })
      .catch((error: unknown) => error);
    expect(dimensions).toBeInstanceOf(BadRequestError);
    expect((dimensions as BadRequestError).param).toBe('dimensions');

    const raw = await fetch(`${relay.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'tiny-bert', input: [] }),
    });
    expect(raw.status).toBe(400);
    const body = (await raw.json()) as { error: Record<string, unknown> };
    expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);

    const ollama = new Ollama({ host: relay.url });
    const ollamaError = await ollama
      .embed({ model: 'tiny-lfm2', input: 'hello' })
      .catch((error: unknown) => error);
    expect((ollamaError as { status_code: number }).status_code).toBe(400);
    expect((ollamaError as Error).message).toContain('cannot embed');

    const old = await fetch(`${relay.url}/api/embeddings`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'tiny-bert', prompt: 'hello world' }),
    });
    const oldBody = (await old.json()) as { embedding: number[] };
    expect(oldBody.embedding).toHaveLength(dimension);

    const chat = await fetch(`${relay.url}/api/generate`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'tiny-bert', prompt: 'hello', stream: false }),
    });
    expect(chat.status).toBe(400);
    expect(((await chat.json()) as { error: string }).error).toContain('cannot generate text');
  });
});
