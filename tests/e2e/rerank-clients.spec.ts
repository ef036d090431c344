import { createCohere } from '@ai-sdk/cohere';
import { expect, test, type Page } from '@playwright/test';
import { APICallError, rerank } from 'ai';
import type { Relay } from '../../src/relay/index.js';
import { testPorts } from '../support/test-ports.js';
import { bundleForPage } from './support/app.js';
import { openEngineTab, startRelay, type EngineTab } from './support/relay.js';

// Rerank with a real reranker GGUF (tiny-bert-reranker: pooling rank, a classification head,
// random weights) in the real engine, through the Vercel AI SDK's `rerank` with its Cohere
// provider pointed at lmtab by base URL, in the page through the service worker and from Node
// through the relay; and llama-server's own shape by plain fetch.

const model = 'tiny-bert-reranker';
const query = 'where does the sea meet the sun';
const documents = [
  'the cat and the dog',
  'the sun is in the sea',
  'hello world',
  'a sea of sun at dawn',
  'it is a dog',
];

interface Answers {
  /** The AI SDK's ranking: every document, most relevant first. */
  ranking: { originalIndex: number; score: number; document: string }[];
  /** The AI SDK with topN 2. */
  top: number[];
  /** llama-server's shape by fetch, with return_documents. */
  raw: {
    status: number;
    body: {
      object?: string;
      model?: string;
      results?: { index: number; relevance_score: number; document?: { text: string } }[];
      usage?: { prompt_tokens: number; total_tokens: number };
    };
  };
}

/** The AI SDK's rerank against one base URL (the same code in the page and in Node). */
async function useClients(
  clients: { rerank: typeof rerank; createCohere: typeof createCohere },
  base: string,
  model: string,
  query: string,
  documents: string[],
): Promise<Answers> {
  const cohere = clients.createCohere({ baseURL: `${base}/v1`, apiKey: 'any' });
  const all = await clients.rerank({
    model: cohere.reranking(model),
    query,
    documents,
    maxRetries: 0,
  });
  const top = await clients.rerank({
    model: cohere.reranking(model),
    query,
    documents,
    topN: 2,
    maxRetries: 0,
  });
  const response = await fetch(`${base}/v1/rerank`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model, query, documents, top_n: 3, return_documents: true }),
  });
  return {
    ranking: all.ranking.map((r) => ({
      originalIndex: r.originalIndex,
      score: r.score,
      document: r.document,
    })),
    top: top.ranking.map((r) => r.originalIndex),
    raw: { status: response.status, body: (await response.json()) as Answers['raw']['body'] },
  };
}

function checkAnswers(answers: Answers): void {
  const { ranking } = answers;
  expect(ranking.map((r) => r.originalIndex).sort()).toEqual([0, 1, 2, 3, 4]);
  for (const entry of ranking) {
    expect(Number.isFinite(entry.score)).toBe(true);
    expect(entry.document).toBe(documents[entry.originalIndex]);
  }
  // Most relevant first, and the scores differ (the head's random weights see different texts).
  ranking
    .slice(1)
    .forEach((entry, i) => expect(entry.score).toBeLessThanOrEqual(ranking[i]!.score));
  expect(new Set(ranking.map((r) => r.score)).size).toBeGreaterThan(1);
  expect(answers.top).toEqual(ranking.slice(0, 2).map((r) => r.originalIndex));
  // llama-server's shape: the same scores, the first 3, each with its document.
  expect(answers.raw.status).toBe(200);
  const raw = answers.raw.body;
  expect(raw).toMatchObject({ object: 'list', model });
  expect(raw.results).toHaveLength(3);
  raw.results!.forEach((result, i) => {
    expect(result.index).toBe(ranking[i]!.originalIndex);
    expect(result.relevance_score).toBeCloseTo(ranking[i]!.score, 5);
    expect(result.document).toEqual({ text: documents[result.index] });
  });
  // Every pair read: more tokens than documents.
  expect(raw.usage!.prompt_tokens).toBeGreaterThan(documents.length);
}

const bundleClients = () =>
  bundleForPage([
    "import { rerank } from 'ai';",
    "import { createCohere } from '@ai-sdk/cohere';",
    'window.rerankClients = { rerank, createCohere };',
  ]);

async function rerankInPage(page: Page): Promise<Answers> {
  await page.evaluate(await bundleClients());
  return page.evaluate(
    ([model, query, documents, source]) => {
      const run = new Function(`return (${source})`)() as typeof useClients;
      const clients = (window as unknown as { rerankClients: Parameters<typeof useClients>[0] })
        .rerankClients;
      return run(clients, location.origin, model, query, documents);
    },
    [model, query, documents, useClients.toString()] as const,
  );
}

test.describe('rerank clients', () => {
  let relay: Relay;
  let tab: EngineTab;
  let inPage: Answers;

  test.beforeAll(async ({ browser }) => {
    relay = await startRelay(testPorts.relayRerank);
    tab = await openEngineTab(browser, relay, [
      { file: 'tiny-bert-reranker.gguf' },
      { file: 'tiny-bert.gguf' },
      { file: 'tiny-lfm2.gguf' },
    ]);
  });

  test.afterAll(async () => {
    await tab?.context.close();
    await relay?.close();
  });

  test("the Vercel AI SDK's rerank (Cohere provider) and llama-server's shape in the page, through the service worker", async () => {
    inPage = await rerankInPage(tab.page);
    checkAnswers(inPage);
  });

  test('the same from Node, through the relay: the same ranking and scores', async () => {
    const answers = await useClients({ rerank, createCohere }, relay.url, model, query, documents);
    checkAnswers(answers);
    if (inPage) {
      expect(answers.ranking.map((r) => r.originalIndex)).toEqual(
        inPage.ranking.map((r) => r.originalIndex),
      );
      answers.ranking.forEach((r, i) => expect(r.score).toBeCloseTo(inPage.ranking[i]!.score, 5));
    }
    // llama-server's bare path, through the relay.
    const bare = await fetch(`${relay.url}/rerank`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model, query, documents }),
    });
    expect(bare.status).toBe(200);
    expect(((await bare.json()) as { results: unknown[] }).results).toHaveLength(documents.length);
  });

  test('a chat or embedding model answers a 400 that says which models rerank', async () => {
    const cohere = createCohere({ baseURL: `${relay.url}/v1`, apiKey: 'any' });
    for (const [name, kind] of [
      ['tiny-lfm2', 'a chat model'],
      ['tiny-bert', 'an embedding model'],
    ]) {
      const error = await rerank({
        model: cohere.reranking(name),
        query,
        documents,
        maxRetries: 0,
      }).catch((e: unknown) => e);
      expect(APICallError.isInstance(error), String(error)).toBe(true);
      const call = error as APICallError;
      expect(call.statusCode).toBe(400);
      const body = JSON.parse(call.responseBody ?? '{}') as {
        error: { message: string; param: string };
      };
      expect(body.error.param).toBe('model');
      expect(body.error.message).toContain('cannot rerank: expected a reranker');
      expect(body.error.message).toContain(`received ${kind}`);
    }
  });
});
