import { expect, test, type Page } from '@playwright/test';
import type { Relay } from '../../src/relay/index.js';
import { buildLfm2Vocabulary, gpt2ByteToUnicode, lfm2Configs } from '../support/lfm2-fixtures.js';
import { testPorts } from '../support/test-ports.js';
import { importModel, openApp } from './support/app.js';
import { openEngineTab, startRelay, type EngineTab } from './support/relay.js';

// llama-server's /tokenize, /detokenize and /apply-template (and /props, for the window), answered
// by the real engine (lmtab's CPU build, its token actions) with tiny-lfm2's byte-level BPE
// vocabulary, called as a front end that budgets context by tokens calls llama-server
// (SillyTavern's llama.cpp tokenizer: POST {content} to /tokenize, {tokens} to /detokenize), in the
// page through the service worker and from Node through the relay. The vocabulary is rebuilt here
// from the fixture's own definition, so each piece is checked against the token it names.

const model = 'tiny-lfm2';
const text = 'the rain in the sea, é!';

interface Answers {
  tokenize: { status: number; body: { tokens: number[] } };
  pieces: { status: number; body: { tokens: { id: number; piece: string | number[] }[] } };
  special: number[];
  literal: number[];
  detokenize: { status: number; body: { content: string } };
  template: { status: number; body: { prompt: string } };
  templateTools: { status: number; body: { prompt: string } };
  templateTokens: number[];
  chatPromptTokens: number;
  badToken: { status: number; body: { error: { message: string; param: string } } };
  props: {
    status: number;
    body: {
      default_generation_settings: { n_ctx: number };
      total_slots: number;
      chat_template: string;
    };
  };
  /** The context the model holds, as Ollama's `/api/ps` says. */
  psContext: number;
}

/** The calls, as a llama-server client makes them (the same code in the page and in Node). */
async function useRoutes(base: string, model: string, text: string): Promise<Answers> {
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
  const messages = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hi there' },
  ];
  const tokenize = await post('/tokenize', { content: text, model });
  const pieces = await post('/tokenize', { content: text, model, with_pieces: true });
  const special = await post('/tokenize', { content: '<|im_start|>', model });
  const literal = await post('/tokenize', { content: '<|im_start|>', model, parse_special: false });
  const detokenize = await post('/detokenize', { tokens: tokenize.body.tokens, model });
  const template = await post('/apply-template', { messages, model });
  const templateTools = await post('/apply-template', {
    messages,
    model,
    tools: [
      {
        type: 'function',
        function: { name: 'get_weather', parameters: { type: 'object', properties: {} } },
      },
    ],
  });
  const templateTokens = await post('/tokenize', { content: template.body.prompt, model });
  const chat = await post('/v1/chat/completions', { model, messages, max_tokens: 1 });
  const badToken = await post('/detokenize', { tokens: [1, 999_999], model });
  const propsResponse = await fetch(`${base}/props?model=${model}`);
  const props = { status: propsResponse.status, body: await propsResponse.json() };
  const ps = await (await fetch(`${base}/api/ps`)).json();
  return {
    tokenize,
    pieces,
    special: special.body.tokens,
    literal: literal.body.tokens,
    detokenize,
    template,
    templateTools,
    templateTokens: templateTokens.body.tokens,
    chatPromptTokens: chat.body.usage.prompt_tokens,
    badToken,
    props,
    psContext: ps.models.find((m: { name: string }) => m.name === model).context_length,
  };
}

/** The bytes of a vocabulary entry (GPT-2's byte-level characters). */
function entryBytes(entry: string): number[] {
  const table = gpt2ByteToUnicode();
  return [...entry].map((char) => table.indexOf(char));
}

function checkAnswers(answers: Answers): void {
  const vocabulary = buildLfm2Vocabulary(lfm2Configs.tiny.vocab).tokens;
  expect(answers.tokenize.status).toBe(200);
  const ids = answers.tokenize.body.tokens;
  // BPE merged letter pairs ("th", "ra", "in", ...): fewer tokens than bytes, all in the vocabulary.
  expect(ids.length).toBeLessThan(new TextEncoder().encode(text).length);
  expect(ids.every((id) => id >= 0 && id < vocabulary.length)).toBe(true);
  expect(ids.some((id) => vocabulary[id]!.length === 2)).toBe(true);
  // Each piece is the text of the token it names: whole characters as text, "é"'s halves as bytes.
  expect(answers.pieces.status).toBe(200);
  const pieces = answers.pieces.body.tokens;
  expect(pieces.map((p) => p.id)).toEqual(ids);
  for (const { id, piece } of pieces) {
    const bytes = typeof piece === 'string' ? [...new TextEncoder().encode(piece)] : piece;
    expect(bytes, `token ${id}`).toEqual(entryBytes(vocabulary[id]!));
  }
  expect(pieces.filter((p) => Array.isArray(p.piece))).toHaveLength(2);
  // Special tokens: one control token when parsed, its letters otherwise.
  expect(answers.special).toEqual([vocabulary.indexOf('<|im_start|>')]);
  expect(answers.literal.length).toBeGreaterThan(1);
  expect(answers.detokenize).toEqual({ status: 200, body: { content: text } });
  // The fixture's chat template (ChatML with BOS), and its tool list. (The list itself renders
  // empty: the fixture's template grows it with `set` inside a for loop, which Jinja scopes to the
  // loop; llama.cpp's Jinja does as Jinja does.)
  expect(answers.template.status).toBe(200);
  expect(answers.template.body.prompt).toBe(
    '<|startoftext|><|im_start|>system\nBe brief.<|im_end|>\n' +
      '<|im_start|>user\nHi there<|im_end|>\n<|im_start|>assistant\n',
  );
  expect(answers.templateTools.body.prompt).toContain('List of tools: <|tool_list_start|>[');
  // The budget a client computes is what the engine reads for the same chat.
  expect(answers.templateTokens.length).toBe(answers.chatPromptTokens);
  expect(answers.badToken.status).toBe(400);
  expect(answers.badToken.body.error.param).toBe('tokens');
  expect(answers.badToken.body.error.message).toContain('999999 is not in the vocabulary');
  // The window a front end budgets: the context the model is loaded with.
  expect(answers.props.status).toBe(200);
  expect(answers.props.body.default_generation_settings.n_ctx).toBe(answers.psContext);
  expect(answers.psContext).toBeGreaterThan(0);
  expect(answers.props.body.total_slots).toBeGreaterThan(0);
  expect(answers.props.body.chat_template).toContain('<|im_start|>');
}

async function routesInPage(page: Page): Promise<Answers> {
  return page.evaluate(
    ([model, text, source]) => {
      const run = new Function(`return (${source})`)() as typeof useRoutes;
      return run(location.origin, model, text);
    },
    [model, text, useRoutes.toString()] as const,
  );
}

test.describe("llama-server's token routes", () => {
  let relay: Relay;
  let tab: EngineTab;
  let inPage: Answers | undefined;

  test.beforeAll(async ({ browser }) => {
    relay = await startRelay(testPorts.relayTokens);
    tab = await openEngineTab(browser, relay, [
      { file: 'tiny-lfm2.gguf' },
      { file: 'tiny-bert.gguf' },
    ]);
  });

  test.afterAll(async () => {
    await tab?.context.close();
    await relay?.close();
  });

  test('/tokenize, /detokenize and /apply-template in the page, through the service worker', async () => {
    inPage = await routesInPage(tab.page);
    checkAnswers(inPage);
  });

  test('the same from Node, through the relay, with the same answers', async () => {
    const answers = await useRoutes(relay.url, model, text);
    checkAnswers(answers);
    if (inPage !== undefined) {
      expect(answers.tokenize.body).toEqual(inPage.tokenize.body);
      expect(answers.template.body).toEqual(inPage.template.body);
    }
  });

  test('without a model the loaded chat model answers; an embedding model gets a 400', async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${relay.url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    // The chat model is loaded by the tests above (serial in this file), the embedder is not a chat model.
    const bare = await post('/tokenize', { content: text });
    expect(bare.status).toBe(200);
    expect(((await bare.json()) as { tokens: number[] }).tokens.length).toBeGreaterThan(3);
    const embedder = await post('/tokenize', { content: text, model: 'tiny-bert' });
    expect(embedder.status).toBe(400);
    expect(((await embedder.json()) as { error: { param: string } }).error.param).toBe('model');
  });
});

test("a model on wllama's stock build gets the same answers from a vocabulary-only instance of lmtab's CPU build", async ({
  page,
}) => {
  // The stock build has no token actions: lmtab loads the file's vocabulary alone into its own
  // build. Chromium here has no usable WebGPU, so the stock build is chosen as the CPU engine.
  await page.goto('/');
  await page.evaluate(() =>
    localStorage.setItem('lmtab.engine-settings', JSON.stringify({ cpuEngine: 'wllama' })),
  );
  await openApp(page);
  await importModel(page, 'tiny-lfm2.gguf');
  const answers = await routesInPage(page);
  checkAnswers(answers);
  const engine = await page.evaluate(async () => (await fetch('/api/lmtab/engine')).json());
  const loaded = (engine.loaded as { model: string; info: { build: string } }[]).find(
    (m) => m.model === model,
  );
  expect(loaded?.info.build).toBe('wllama 3.13.0');
});
