import { describe, expect, it } from 'vitest';
import { fakeRelevance } from '../../testing/fake-engine.js';
import { embedderRecordFixture, modelRecordFixture } from '../../testing/model-record-fixture.js';
import { routerHarness } from '../../testing/router-harness.js';

const chat = modelRecordFixture();
const records = [chat, embedderRecordFixture('bge-small'), embedderRecordFixture('bge-reranker')];
const query = 'where does the sea meet the sun';
const documents = [
  'the cat sleeps',
  'the sun sets over the sea',
  'a dog in the sun',
  'where the sea meets the sun at dusk',
];

describe('POST /v1/rerank', () => {
  it('ranks the documents by score, most relevant first, with their indices and usage', async () => {
    const { send, engine } = routerHarness({ records });
    const response = await send('/v1/rerank', { model: 'bge-reranker', query, documents });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      id: string;
      object: string;
      model: string;
      results: { index: number; relevance_score: number }[];
      usage: { prompt_tokens: number; total_tokens: number };
    };
    const scores = documents.map((document) => fakeRelevance(query, document));
    const order = [...scores.keys()].sort((a, b) => scores[b]! - scores[a]!);
    expect(body.results).toEqual(order.map((index) => ({ index, relevance_score: scores[index] })));
    expect(body.results.map((r) => r.index)).toEqual([3, 1, 2, 0]);
    expect(body).toMatchObject({ object: 'list', model: 'bge-reranker' });
    expect(body.id).toMatch(/^rerank-[0-9a-f]{24}$/);
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens);
    expect(engine.rerankRequests).toEqual([{ model: 'bge-reranker', query, documents }]);
  });

  it('keeps the top_n, returns documents when asked, and takes objects with a text field', async () => {
    const { send } = routerHarness({ records });
    const response = await send('/v1/rerank', {
      model: 'bge-reranker',
      query,
      documents: [{ text: documents[0], id: 'a' }, documents[3], { text: documents[1] }],
      top_n: 2,
      return_documents: true,
      rank_fields: ['text'],
      priority: 1,
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { results: unknown[] };
    expect(body.results).toEqual([
      { index: 1, relevance_score: expect.any(Number), document: { text: documents[3] } },
      { index: 2, relevance_score: expect.any(Number), document: { text: documents[1] } },
    ]);
  });

  it("answers llama-server's other rerank paths the same way", async () => {
    const { send } = routerHarness({ records });
    for (const path of ['/v1/reranking', '/rerank', '/reranking']) {
      const response = await send(path, { model: 'bge-reranker', query, documents });
      expect(response.status, path).toBe(200);
      expect(((await response.json()) as { results: unknown[] }).results).toHaveLength(4);
    }
  });

  it('refuses a chat or embedding model with a 400 that says which models rerank', async () => {
    const { send } = routerHarness({ records });
    for (const [model, kind] of [
      [chat.id, 'a chat model'],
      ['bge-small', 'an embedding model'],
    ]) {
      const response = await send('/v1/rerank', { model, query, documents });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { message: string; param: string } };
      expect(body.error.param).toBe('model');
      expect(body.error.message).toContain('cannot rerank: expected a reranker');
      expect(body.error.message).toContain('pooling_type is rank');
      expect(body.error.message).toContain(`received ${kind}`);
    }
  });

  it('refuses bad bodies with what was expected and what arrived', async () => {
    const { send } = routerHarness({ records });
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ model: 'bge-reranker', documents }, 'query', /query/],
      [{ model: 'bge-reranker', query, documents: [] }, 'documents', /at least one document/],
      [{ model: 'bge-reranker', query, documents: [{ image: 'x' }] }, 'documents[0].text', /text/],
      [{ model: 'bge-reranker', query, documents, top_n: 0 }, 'top_n', /top_n/],
      [
        { model: 'bge-reranker', query, documents, rank_fields: ['title'] },
        'rank_fields[0]',
        /text/,
      ],
      [
        { model: 'bge-reranker', query, documents, raw_scores: true },
        'raw_scores',
        /Unsupported field `raw_scores`/,
      ],
      [
        { model: 'bge-reranker', query, documents, max_tokens_per_doc: 4 },
        'max_tokens_per_doc',
        /does not cut documents.*document 0 of 14 bytes/,
      ],
    ];
    for (const [body, param, message] of cases) {
      const response = await send('/v1/rerank', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      const error = ((await response.json()) as { error: { message: string; param?: string } })
        .error;
      expect(error.message).toMatch(message);
      if (param) expect(error.param).toBe(param);
    }
    // A limit no document can pass is honoured as it is.
    const fits = await send('/v1/rerank', {
      model: 'bge-reranker',
      query,
      documents,
      max_tokens_per_doc: 4096,
    });
    expect(fits.status).toBe(200);
  });
});
