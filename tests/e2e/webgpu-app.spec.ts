import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { Ollama } from 'ollama';
import type OpenAI from 'openai';
import type { Relay } from '../../src/relay/index.js';
import { testPorts } from '../support/test-ports.js';
import { weatherParameters } from '../support/tool-schemas.js';
import { importModel, installOpenAi, pngDataUri, withEngineSettings } from './support/app.js';
import { engineStatus, expectOnGpu } from './support/gpu-offload.js';
import { openAiClient } from './support/relay-clients.js';
import { openEngineTab, openPage, startRelay, type EngineTab } from './support/relay.js';
import { expectValid } from './support/schema.js';

// The app's own engine tab on wllama's stock WebGPU build, on a real adapter with shader-f16 (Mesa's
// lavapipe, which Chromium takes with the `webgpu` project's layer): each request through the tab's
// service worker from the page's own openai SDK, and through the relay from Node's openai and ollama
// clients. Every test reads llama.cpp's own log lines of the load, so a model on the CPU fails. One
// tab serves the whole file: a tab per test would repeat the first visit, the imports and the loads.

/** The tiny F16 model with a vocabulary of words (written by webgpu.setup.ts). */
const chatModel = 'tiny-lfm2-f16-words';
const visionModel = 'tiny-lfm2-vl';
const embedModel = 'tiny-bert';
const rerankModel = 'tiny-bert-reranker';
const models = [
  { file: `${chatModel}.gguf` },
  { file: `${visionModel}.gguf`, projector: 'mmproj-tiny-lfm2-vl.gguf' },
  { file: `${embedModel}.gguf` },
  { file: `${rerankModel}.gguf` },
];

const reportSchema = {
  type: 'object',
  properties: {
    ok: { type: 'boolean' },
    count: { type: 'integer', minimum: 0, maximum: 99 },
    mood: { type: 'string', enum: ['calm', 'busy'] },
  },
  required: ['ok', 'count', 'mood'],
  additionalProperties: false,
};

/** llama-server's field, which lmtab takes and the openai SDK's types do not: no early end. */
const noEarlyEnd: object = { ignore_eos: true };

/** One sampled token of a chat completion's logprobs, and its top alternatives. */
interface Step {
  token: string;
  top_logprobs: { token: string; logprob: number }[];
}

const hello = [{ role: 'user' as const, content: 'Say something about the sea.' }];

test.describe('the app on WebGPU in Chromium (lavapipe), end to end @webgpu', () => {
  test.describe.configure({ mode: 'serial', timeout: 180_000 });
  let relay: Relay;
  let tab: EngineTab;
  let page: Page;
  let openai: OpenAI;
  let ollama: Ollama;

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(300_000);
    relay = await startRelay(testPorts.relayWebgpu);
    tab = await openEngineTab(browser, relay, models);
    page = tab.page;
    await installOpenAi(page);
    openai = openAiClient(relay);
    ollama = new Ollama({ host: relay.url });
  });

  test.afterAll(async () => {
    await tab?.context.close();
    await relay?.close();
  });

  /** One chat completion from the page's SDK (its service worker), then from Node's (the relay). */
  async function chatBothWays(request: OpenAI.ChatCompletionCreateParamsNonStreaming) {
    const inPage = await page.evaluate(
      (request) => window.openai.chat.completions.create(request),
      request,
    );
    return [inPage, await openai.chat.completions.create(request)];
  }

  test('the engine plans WebGPU on lavapipe, an adapter with shader-f16', async () => {
    const status = await engineStatus(page);
    test.info().annotations.push({ type: 'engine', description: JSON.stringify(status) });
    expect(status.gpu?.features).toContain('shader-f16');
    expect(status.gpu?.adapter).toMatch(/mesa/);
    expect(status).toMatchObject({ backend: 'webgpu', crossOriginIsolated: true });
    expect(status.fallbackReason).toBeUndefined();
  });

  test('chat, JSON and SSE: the page through its service worker, Node through the relay', async () => {
    const inPage = await page.evaluate(async (model) => {
      const asked = { model, max_tokens: 8, temperature: 0 };
      const messages = [{ role: 'user' as const, content: 'Say something about the sea.' }];
      const json = await window.openai.chat.completions.create({ ...asked, messages });
      let streamed = '';
      let chunks = 0;
      const stream = await window.openai.chat.completions.create({
        ...asked,
        messages,
        stream: true,
      });
      for await (const chunk of stream) {
        chunks += 1;
        streamed += chunk.choices[0]?.delta.content ?? '';
      }
      return { json, streamed, chunks };
    }, chatModel);
    expect(inPage.json.choices[0]!.message.content!.length).toBeGreaterThan(0);
    expect(inPage.json.usage?.completion_tokens).toBeGreaterThan(0);
    // Greedy: the stream says what the JSON answer said.
    expect(inPage.streamed).toBe(inPage.json.choices[0]!.message.content);
    expect(inPage.chunks).toBeGreaterThan(1);
    const { report } = await expectOnGpu(page, chatModel, { splits: 2 });
    test.info().annotations.push({ type: 'offload', description: JSON.stringify(report) });

    const json = await openai.chat.completions.create({
      model: chatModel,
      messages: hello,
      max_tokens: 8,
      temperature: 0,
    });
    expect(json.choices[0]!.message.content).toBe(inPage.json.choices[0]!.message.content);
    let sse = '';
    const stream = await openai.chat.completions.create({
      model: chatModel,
      messages: hello,
      max_tokens: 8,
      temperature: 0,
      stream: true,
    });
    for await (const chunk of stream) sse += chunk.choices[0]?.delta.content ?? '';
    expect(sse).toBe(json.choices[0]!.message.content);

    const options = { num_predict: 8, temperature: 0 };
    const answer = await ollama.chat({ model: chatModel, messages: hello, options });
    expect(answer.message.content).toBe(json.choices[0]!.message.content);
    let streamed = '';
    const parts = await ollama.chat({ model: chatModel, messages: hello, options, stream: true });
    for await (const part of parts) streamed += part.message.content;
    expect(streamed).toBe(answer.message.content);
    await expectOnGpu(page, chatModel, { splits: 2 });
  });

  test('the next turn reuses the prompt cache', async () => {
    const first = [{ role: 'user' as const, content: 'Name three colours of the sea at dawn.' }];
    const ask = (messages: OpenAI.ChatCompletionMessageParam[]) =>
      openai.chat.completions.create({
        model: chatModel,
        messages,
        max_tokens: 6,
        temperature: 0,
      });
    const answer = await ask(first);
    const next = await ask([
      ...first,
      { role: 'assistant', content: answer.choices[0]!.message.content ?? '' },
      { role: 'user', content: 'And at dusk?' },
    ]);
    const before = answer.usage!.prompt_tokens;
    expect(next.usage!.prompt_tokens).toBeGreaterThan(before);
    expect(next.usage!.prompt_tokens_details?.cached_tokens).toBeGreaterThanOrEqual(before);
    await expectOnGpu(page, chatModel, { splits: 2 });
  });

  test('a forced tool call has arguments valid against its schema', async () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'get_weather', parameters: weatherParameters } },
    ];
    const request = {
      model: chatModel,
      messages: [{ role: 'user' as const, content: 'Weather in Oslo this week?' }],
      tools,
      tool_choice: { type: 'function' as const, function: { name: 'get_weather' } },
      max_tokens: 200,
      temperature: 0.7,
      seed: 7,
    };
    for (const answer of await chatBothWays(request)) {
      expect(answer.choices[0]!.finish_reason).toBe('tool_calls');
      const call = answer.choices[0]!.message.tool_calls?.[0];
      if (call?.type !== 'function') throw new Error('expected a function call');
      expect(call.function.name).toBe('get_weather');
      expectValid(weatherParameters, JSON.parse(call.function.arguments));
    }
    await expectOnGpu(page, chatModel, { splits: 2 });
  });

  test('json_schema output is valid JSON of the schema', async () => {
    const request = {
      model: chatModel,
      messages: [{ role: 'user' as const, content: 'Report the harbour status as JSON.' }],
      response_format: {
        type: 'json_schema' as const,
        json_schema: { name: 'report', schema: reportSchema, strict: true },
      },
      max_tokens: 200,
      temperature: 0.7,
      seed: 3,
    };
    for (const answer of await chatBothWays(request)) {
      expectValid(reportSchema, JSON.parse(answer.choices[0]!.message.content ?? ''));
    }
    const fromOllama = await ollama.chat({
      model: chatModel,
      messages: request.messages,
      format: reportSchema,
      options: { num_predict: 200, temperature: 0.7, seed: 3 },
    });
    expectValid(reportSchema, JSON.parse(fromOllama.message.content));
    await expectOnGpu(page, chatModel, { splits: 2 });
  });

  test('abort ends a stream, and the next request is served', async () => {
    const long = {
      model: chatModel,
      messages: [{ role: 'user' as const, content: 'Count to one thousand.' }],
      max_tokens: 2000,
      temperature: 0,
      stream: true as const,
      ...noEarlyEnd,
    };
    // The answer's slot is free again long before 2000 tokens could have been made.
    const idle = () =>
      expect
        .poll(async () => (await engineStatus(page)).loaded.map((m) => m.active), {
          timeout: 10_000,
        })
        .toEqual([0]);
    const chunks = await page.evaluate(async (long) => {
      const stream = await window.openai.chat.completions.create(long);
      let chunks = 0;
      for await (const chunk of stream) {
        if (chunk.choices[0]?.delta.content && ++chunks === 3) {
          stream.controller.abort();
          break;
        }
      }
      return chunks;
    }, long);
    expect(chunks).toBe(3);
    await idle();
    const next = await page.evaluate(
      (model) =>
        window.openai.chat.completions.create({
          model,
          messages: [{ role: 'user', content: 'Hello' }],
          max_tokens: 4,
          temperature: 0,
        }),
      chatModel,
    );
    expect(next.usage?.completion_tokens).toBeGreaterThan(0);

    const controller = new AbortController();
    const stream = await openai.chat.completions.create(long, { signal: controller.signal });
    let fromNode = 0;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content && ++fromNode === 3) {
        controller.abort();
        break;
      }
    }
    expect(fromNode).toBe(3);
    await idle();
    const after = await openai.chat.completions.create({
      model: chatModel,
      messages: hello,
      max_tokens: 4,
      temperature: 0,
    });
    expect(after.usage?.completion_tokens).toBeGreaterThan(0);
    await expectOnGpu(page, chatModel, { splits: 2 });
  });

  test('an image goes through the vision projector on WebGPU', async () => {
    const image = await pngDataUri(page);
    const content: OpenAI.ChatCompletionContentPart[] = [
      { type: 'image_url', image_url: { url: image } },
      { type: 'text', text: 'What is this?' },
    ];
    const asked = { model: visionModel, max_tokens: 4, temperature: 0 };
    const inPage = await page.evaluate(
      ({ asked, content }) =>
        window.openai.chat.completions.create({
          ...asked,
          messages: [{ role: 'user', content }],
        }),
      { asked, content },
    );
    const textOnly = await openai.chat.completions.create({
      ...asked,
      messages: [{ role: 'user', content: 'What is this?' }],
    });
    // The image's tokens are part of the prompt.
    expect(inPage.usage!.prompt_tokens).toBeGreaterThan(textOnly.usage!.prompt_tokens + 16);
    const fromNode = await openai.chat.completions.create({
      ...asked,
      messages: [{ role: 'user', content }],
    });
    expect(fromNode.usage!.prompt_tokens).toBe(inPage.usage!.prompt_tokens);
    const fromOllama = await ollama.chat({
      model: visionModel,
      messages: [{ role: 'user', content: 'What is this?', images: [image.split(',')[1]!] }],
      options: { num_predict: 4, temperature: 0 },
    });
    expect(fromOllama.prompt_eval_count).toBe(inPage.usage!.prompt_tokens);
    const { report } = await expectOnGpu(page, visionModel, { splits: 2 });
    expect(report.projectorBackend).toBe('WebGPU');
    expect(report.projectorSplits).toBe(1);
  });

  test('embeddings and rerank run on WebGPU', async () => {
    const texts = ['the tide comes in', 'the tide goes out'];
    const inPage = await page.evaluate(
      ({ model, texts }) =>
        window.openai.embeddings.create({ model, input: texts, encoding_format: 'float' }),
      { model: embedModel, texts },
    );
    const fromNode = await openai.embeddings.create({
      model: embedModel,
      input: texts,
      encoding_format: 'float',
    });
    const fromOllama = await ollama.embed({ model: embedModel, input: texts });
    const reference = inPage.data.map((d) => d.embedding);
    for (const vectors of [
      reference,
      fromNode.data.map((d) => d.embedding),
      fromOllama.embeddings,
    ]) {
      expect(vectors).toHaveLength(2);
      for (const vector of vectors) expect(Math.hypot(...vector)).toBeCloseTo(1, 3);
      expect(vectors[0]).not.toEqual(vectors[1]);
      vectors.forEach((vector, n) =>
        vector.forEach((value, i) => expect(value).toBeCloseTo(reference[n]![i]!, 5)),
      );
    }
    // One embedding model is resident beside the chat model: each is read while it is there.
    await expectOnGpu(page, embedModel);

    const rerank = { model: rerankModel, query: 'tide', documents: texts };
    const rerankInPage = await page.evaluate(async (rerank) => {
      const response = await fetch('/v1/rerank', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(rerank),
      });
      return response.json();
    }, rerank);
    const rerankFromNode = await fetch(`${relay.url}/v1/rerank`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(rerank),
    }).then((r) => r.json());
    for (const answer of [rerankInPage, rerankFromNode]) {
      expect(answer.results).toHaveLength(2);
      for (const result of answer.results) {
        expect(Number.isFinite(result.relevance_score)).toBe(true);
      }
    }
    expect(rerankFromNode.results).toEqual(rerankInPage.results);
    await expectOnGpu(page, rerankModel);
  });

  test.describe('top-5 log-probabilities', () => {
    let cpu: BrowserContext | undefined;
    test.afterAll(async () => {
      await cpu?.close();
    });

    test("on WebGPU match wllama's CPU build on the same prompt", async ({ browser }) => {
      // Sampled at temperature 1 from the top 5 with one seed: llama.cpp then lists the 5
      // candidates' log-probabilities (at temperature 0 only the chosen one).
      const request = {
        model: chatModel,
        messages: [
          {
            role: 'user',
            content: 'The harbour master wrote in the log that the evening tide',
          },
        ],
        max_tokens: 8,
        temperature: 1,
        top_k: 5,
        top_p: 1,
        min_p: 0,
        seed: 11,
        ignore_eos: true,
        logprobs: true,
        top_logprobs: 5,
      };
      const steps = (target: Page) =>
        target.evaluate(async (request) => {
          const response = await fetch('/v1/chat/completions', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify(request),
          });
          const body = await response.json();
          return body.choices[0].logprobs.content as Step[];
        }, request);
      const onGpu = await steps(page);
      await expectOnGpu(page, chatModel, { splits: 2 });

      // A context of its own is an engine of its own: wllama's stock build, the same llama.cpp, on
      // the CPU (lmtab's CPU build lists tokens that are not whole characters, which the stock
      // build leaves out, so their candidates differ by design: src/engine/wllama/utf8-guard.ts).
      cpu = await browser.newContext();
      await withEngineSettings(cpu, { gpuLayers: 0, cpuEngine: 'wllama' });
      const cpuPage = await cpu.newPage();
      await openPage(cpuPage, relay.appUrl());
      await importModel(cpuPage, `${chatModel}.gguf`);
      const onCpu = await steps(cpuPage);
      const cpuStatus = await engineStatus(cpuPage);
      expect(cpuStatus.loaded[0]?.info).toMatchObject({
        backend: 'wasm',
        build: 'wllama 3.13.0',
      });

      // Step by step while both sampled the same token (after a different one their contexts
      // differ): the same 5 candidates, and their log-probabilities in order. By rank, not by
      // text: two tokens of this vocabulary may both read as '' (bytes of no whole character).
      let compared = 0;
      let worst = 0;
      const sorted = (step: Step) => step.top_logprobs.map((t) => t.logprob).sort((a, b) => b - a);
      const texts = (step: Step) => step.top_logprobs.map((t) => t.token).sort();
      for (let i = 0; i < Math.min(onGpu.length, onCpu.length); i++) {
        expect(texts(onGpu[i]!), `step ${i}`).toEqual(texts(onCpu[i]!));
        const reference = sorted(onCpu[i]!);
        sorted(onGpu[i]!).forEach((logprob, k) => {
          worst = Math.max(worst, Math.abs(logprob - reference[k]!));
        });
        compared += 1;
        if (onGpu[i]!.token !== onCpu[i]!.token) break;
      }
      test.info().annotations.push({
        type: 'logprobs',
        description: `${compared} steps of 5 candidates, worst difference ${worst}`,
      });
      expect(compared).toBeGreaterThanOrEqual(3);
      // F16 weights, floats on both sides (seen: 3e-4).
      expect(worst).toBeLessThanOrEqual(1e-3);
    });
  });
});
