import { type Page } from '@playwright/test';
import { expect, test } from './support/reused-context.js';
import type { Wllama } from '@wllama/wllama';
import { readdir, readFile } from 'node:fs/promises';
import {
  bundleForPage,
  fixture,
  importModel,
  installOpenAi,
  openApp,
  openTab,
} from './support/app.js';

/** Dimension of the tiny encoder and of the tiny LFM2 decoder. */
const dimension = 64;
const texts = ['the sea at dawn', 'a cat and a dog', 'hello world', 'the sun is in the sea'];

function norm(vector: number[]): number {
  return Math.hypot(...vector);
}

function expectSameVector(actual: number[], expected: number[]): void {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((value, i) => expect(value).toBeCloseTo(expected[i]!, 5));
}

/** Embeds through the page's `openai` SDK, as floats and as base64 (decoded by the SDK). */
function sdkEmbeddings(page: Page, model: string) {
  return page.evaluate(
    async ({ model, texts }) => {
      const client = window.openai;
      const alone = await client.embeddings.create({
        model,
        input: texts[2]!,
        encoding_format: 'float',
      });
      const many = await client.embeddings.create({
        model,
        input: texts,
        encoding_format: 'float',
      });
      // No encoding_format: the SDK asks for base64 and decodes the float32 bytes itself.
      const decoded = await client.embeddings.create({ model, input: texts });
      const raw = await (
        await fetch('/v1/embeddings', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ model, input: texts[0], encoding_format: 'base64' }),
        })
      ).json();
      return { alone, many, decoded, raw };
    },
    { model, texts },
  );
}

test.describe('embeddings in the page, through the service worker', () => {
  test.beforeEach(async ({ page }) => {
    await openApp(page);
    await installOpenAi(page);
  });

  test('the openai SDK embeds a string and an array: order, dimension, norm, base64', async ({
    page,
  }) => {
    const model = await importModel(page, 'tiny-bert.gguf');
    const { alone, many, decoded, raw } = await sdkEmbeddings(page, model);
    expect(alone.object).toBe('list');
    expect(alone.model).toBe(model);
    expect(alone.data).toHaveLength(1);
    expect(alone.data[0]!.index).toBe(0);
    expect(alone.usage.prompt_tokens).toBeGreaterThan(0);
    expect(alone.usage.total_tokens).toBe(alone.usage.prompt_tokens);

    expect(many.data.map((d) => d.index)).toEqual([0, 1, 2, 3]);
    for (const item of many.data) {
      expect(item.object).toBe('embedding');
      expect(item.embedding).toHaveLength(dimension);
      expect(norm(item.embedding)).toBeCloseTo(1, 4);
    }
    // The same text alone and third in the array: the same vector (order is kept).
    expectSameVector(many.data[2]!.embedding, alone.data[0]!.embedding);
    // Different texts, different vectors.
    expect(many.data[0]!.embedding[0]).not.toBeCloseTo(many.data[1]!.embedding[0]!, 6);
    expect(many.usage.prompt_tokens).toBeGreaterThan(alone.usage.prompt_tokens);

    decoded.data.forEach((item, i) => expectSameVector(item.embedding, many.data[i]!.embedding));
    const bytes = Buffer.from(raw.data[0].embedding as string, 'base64');
    expect(bytes.length).toBe(dimension * 4);
    const floats = Array.from({ length: dimension }, (_, i) => bytes.readFloatLE(i * 4));
    expectSameVector(floats, many.data[0]!.embedding);
  });

  test('more inputs than the engine has parallel slots, and two such requests at once', async ({
    page,
  }) => {
    const model = await importModel(page, 'tiny-bert.gguf');
    const result = await page.evaluate(async (model) => {
      const texts = (tag: string) => Array.from({ length: 40 }, (_, i) => `${tag} text ${i}`);
      const [a, b] = await Promise.all(
        ['one', 'two'].map((tag) => window.openai.embeddings.create({ model, input: texts(tag) })),
      );
      const alone = await window.openai.embeddings.create({ model, input: 'two text 33' });
      return { a, b, alone };
    }, model);
    // wllama answers no task posted while its 16 slots are busy: 40 + 40 inputs once hung here.
    for (const answer of [result.a, result.b]) {
      expect(answer.data.map((d) => d.index)).toEqual(Array.from({ length: 40 }, (_, i) => i));
      for (const item of answer.data) expect(norm(item.embedding)).toBeCloseTo(1, 4);
    }
    expectSameVector(result.b.data[33]!.embedding, result.alone.data[0]!.embedding);
  });

  test('token arrays, a decoder with last-token pooling, and the 400s', async ({ page }) => {
    const bert = await importModel(page, 'tiny-bert.gguf');
    const decoder = await importModel(page, 'tiny-lfm2-embed.gguf');
    const chat = await importModel(page, 'tiny-lfm2.gguf');
    const answers = await page.evaluate(
      async ({ bert, decoder, chat }) => {
        const post = async (path: string, body: unknown) => {
          const response = await fetch(path, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify(body),
          });
          return { status: response.status, body: (await response.json()) as unknown };
        };
        return {
          tokens: await post('/v1/embeddings', {
            model: bert,
            input: [
              [2, 10, 11, 3],
              [2, 12, 3],
            ],
          }),
          oneTokenArray: await post('/v1/embeddings', { model: bert, input: [2, 12, 3] }),
          decoder: await post('/v1/embeddings', { model: decoder, input: ['hello', 'world'] }),
          chatModel: await post('/v1/embeddings', { model: chat, input: 'hello' }),
          chatToEmbedder: await post('/v1/chat/completions', {
            model: bert,
            messages: [{ role: 'user', content: 'hi' }],
          }),
          ollamaChatToEmbedder: await post('/api/chat', {
            model: decoder,
            messages: [{ role: 'user', content: 'hi' }],
          }),
          dimensions: await post('/v1/embeddings', { model: bert, input: 'a', dimensions: 32 }),
          ownDimensions: await post('/v1/embeddings', { model: bert, input: 'a', dimensions: 64 }),
          unknownField: await post('/v1/embeddings', { model: bert, input: 'a', extra: 1 }),
          badInput: await post('/v1/embeddings', { model: bert, input: [1, 'a'] }),
          outOfVocabulary: await post('/v1/embeddings', { model: bert, input: [2, 50_000, 3] }),
          afterRefusal: await post('/v1/embeddings', { model: bert, input: [2, 12, 3] }),
          ollamaBad: await post('/api/embed', { model: bert, input: 5 }),
          ollamaChatModel: await post('/api/embed', { model: chat, input: 'a' }),
          tooLong: await post('/v1/embeddings', { model: bert, input: 'a '.repeat(700) }),
          truncated: await post('/api/embed', { model: bert, input: 'a '.repeat(700) }),
          notTruncated: await post('/api/embed', {
            model: bert,
            input: 'a '.repeat(700),
            truncate: false,
          }),
          show: await post('/api/show', { model: bert }),
          showDecoder: await post('/api/show', { model: decoder }),
          showChat: await post('/api/show', { model: chat }),
        };
      },
      { bert, decoder, chat },
    );
    type List = { data: { embedding: number[] }[]; usage: { prompt_tokens: number } };
    const tokens = answers.tokens.body as List;
    expect(answers.tokens.status).toBe(200);
    expect(tokens.data).toHaveLength(2);
    expect(tokens.usage.prompt_tokens).toBe(7);
    const one = answers.oneTokenArray.body as List;
    expect(one.data).toHaveLength(1);
    expectSameVector(one.data[0]!.embedding, tokens.data[1]!.embedding);

    const decoded = answers.decoder.body as List;
    expect(answers.decoder.status).toBe(200);
    expect(decoded.data).toHaveLength(2);
    expect(decoded.data[0]!.embedding).toHaveLength(dimension);
    expect(norm(decoded.data[1]!.embedding)).toBeCloseTo(1, 4);

    const openAiError = (answer: { status: number; body: unknown }, param: string | null) => {
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({
        error: { type: 'invalid_request_error', code: 'invalid_request', param },
      });
      return (answer.body as { error: { message: string } }).error.message;
    };
    expect(openAiError(answers.chatModel, 'model')).toContain('cannot embed');
    expect(openAiError(answers.chatToEmbedder, 'model')).toContain('embedding model');
    expect(answers.ollamaChatToEmbedder.status).toBe(400);
    expect((answers.ollamaChatToEmbedder.body as { error: string }).error).toContain(
      'cannot generate text',
    );
    expect(openAiError(answers.dimensions, 'dimensions')).toContain('received 32');
    expect(answers.ownDimensions.status).toBe(200);
    expect(openAiError(answers.unknownField, 'extra')).toContain('Unsupported field `extra`');
    expect(openAiError(answers.badInput, 'input[0]')).toContain('received the number 1');
    expect(openAiError(answers.outOfVocabulary, 'input')).toContain('token');
    // A refused input leaves the instance working: the same vector as before.
    expectSameVector(
      (answers.afterRefusal.body as List).data[0]!.embedding,
      tokens.data[1]!.embedding,
    );
    expect(answers.ollamaBad.status).toBe(400);
    expect((answers.ollamaBad.body as { error: string }).error).toContain(
      'a string or an array of strings',
    );
    expect(answers.ollamaChatModel.status).toBe(400);
    expect(Object.keys(answers.ollamaChatModel.body as object)).toEqual(['error']);
    expect(openAiError(answers.tooLong, 'input')).toContain('context');

    const truncated = answers.truncated.body as {
      embeddings: number[][];
      prompt_eval_count: number;
    };
    expect(answers.truncated.status).toBe(200);
    expect(truncated.embeddings).toHaveLength(1);
    expect(truncated.prompt_eval_count).toBeLessThanOrEqual(512);
    expect(truncated.prompt_eval_count).toBeGreaterThan(400);
    expect(answers.notTruncated.status).toBe(400);
    expect((answers.notTruncated.body as { error: string }).error).toContain('truncate');

    expect((answers.show.body as { capabilities: string[] }).capabilities).toEqual(['embedding']);
    expect((answers.showDecoder.body as { capabilities: string[] }).capabilities).toEqual([
      'embedding',
    ]);
    // The chat fixture's LFM2 template renders tools.
    expect((answers.showChat.body as { capabilities: string[] }).capabilities).toEqual([
      'completion',
      'tools',
    ]);
  });
});

test('My Models marks embedding models; the Chat picker lists them but offers only chat models', async ({
  page,
}) => {
  await openApp(page);
  const bert = await importModel(page, 'tiny-bert.gguf');
  const chat = await importModel(page, 'tiny-lfm2.gguf');
  // Imported last, so the newest: still not the one the Chat tab offers.
  const decoder = await importModel(page, 'tiny-lfm2-embed.gguf');
  await openTab(page, 'My Models');
  const list = page.getByRole('tabpanel', { name: 'My Models' }).getByRole('list', {
    name: 'Stored models',
  });
  await expect(list.locator(`[data-model="${bert}"]`)).toContainText('Embedding');
  await expect(list.locator(`[data-model="${decoder}"]`)).toContainText('Embedding');
  await expect(list.locator(`[data-model="${chat}"]`)).not.toContainText('Embedding');
  await openTab(page, 'Chat');
  const select = page.getByLabel('Model', { exact: true });
  await expect(select).toHaveValue(chat);
  await expect(select.locator(`option[value="${bert}"]`)).toBeDisabled();
  await expect(select.locator(`option[value="${bert}"]`)).toContainText('embedding only');
  await expect(select.locator(`option[value="${chat}"]`)).toBeEnabled();
});

test('wllama 3.13.0 alone: createEmbedding with an array answers one vector per input, in order (3.8.1 answered one)', async ({
  page,
}) => {
  const wasm = (await readdir('dist/assets')).find((name) => /^wllama-.*\.wasm$/.test(name));
  expect(wasm).toBeDefined();
  const bundle = await bundleForPage([
    "import { Wllama } from '@wllama/wllama/esm/index.js'; window.WllamaForTest = Wllama;",
  ]);
  await openApp(page);
  await page.evaluate(bundle);
  const model = (await readFile(fixture('tiny-bert.gguf'))).toString('base64');
  const answers = await page.evaluate(
    async ({ wasm, model, texts }) => {
      const WllamaClass = (window as unknown as { WllamaForTest: typeof Wllama }).WllamaForTest;
      const bytes = Uint8Array.from(atob(model), (c) => c.charCodeAt(0));
      const wllama = new WllamaClass({ default: `/assets/${wasm}` }, { suppressNativeLog: true });
      await wllama.loadModel([new Blob([bytes])], {
        embeddings: true,
        pooling_type: 'mean',
        n_ctx: 512,
        n_threads: 1,
      });
      const many = await wllama.createEmbedding({ input: texts } as never);
      const alone = [];
      for (const text of texts) alone.push(await wllama.createEmbedding({ input: text } as never));
      await wllama.exit();
      return { many, alone };
    },
    { wasm: wasm!, model, texts },
  );
  type Answer = { data: { embedding: number[]; index: number }[] };
  const many = answers.many as unknown as Answer;
  // 3.8.1 answered one vector for four inputs (why lmtab posts one request per input); 3.13.0
  // collects every input's vector and answers them in order.
  expect(many.data.map((entry) => entry.index)).toEqual(texts.map((_, i) => i));
  const distances = (answers.alone as unknown as Answer[]).map((answer, i) =>
    Math.max(...answer.data[0]!.embedding.map((x, j) => Math.abs(x - many.data[i]!.embedding[j]!))),
  );
  test.info().annotations.push({ type: 'distances', description: JSON.stringify(distances) });
  for (const distance of distances) expect(distance).toBeLessThan(1e-4);
});
