import { expect, test } from '@playwright/test';
import { Ollama } from 'ollama';
import type OpenAI from 'openai';
import type { Browser, Page } from 'puppeteer-core';
import type { Relay } from '../../src/relay/index.js';
import { testPorts } from '../support/test-ports.js';
import { notOnGpu, readOffload } from '../support/webgpu/offload-report.js';
import { installOpenAi } from './support/app.js';
import {
  createFromFixture,
  firefoxEngineStatus,
  firefoxProblems,
  launchFirefox,
  newFirefoxPage,
  openFirefoxApp,
} from './support/firefox.js';
import { openAiClient } from './support/relay-clients.js';
import { startRelay } from './support/relay.js';

// The app in Debian's Firefox ESR (153), driven over WebDriver BiDi by puppeteer-core: on its CPU
// path as a person's Firefox has it (no WebGPU), and on WebGPU with Mesa's lavapipe and the prefs
// that enable it. Each part answers through the tab's service worker (fetch, SSE, the page's own
// openai SDK) and, once the tab opens the relay's pairing link, to Node's clients through the relay.
// The models are stored as `ollama create` stores them (a blob upload, then create), through the
// service worker: Firefox has no `Request.body`, and that path reads request bodies the way it can.
// Costs about 50 s of one e2e worker: two Firefox starts (4 s each), the WebGPU load on lavapipe
// about 20 s.

const greeting = [{ role: 'user' as const, content: 'Say something about the sea.' }];

/** llama-server's field, which lmtab takes and the openai SDK's types do not: no early end. */
const noEarlyEnd: object = { ignore_eos: true };

/** One chat completion through the page's service worker: its status and body. */
function chatInPage(page: Page, model: string, extra: object = {}) {
  return page.evaluate(
    async (body) => {
      const response = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, text: await response.text() };
    },
    { model, messages: greeting, max_tokens: 6, ignore_eos: true, ...extra },
  );
}

/**
 * One chat completion from the page's own openai SDK (through its service worker). The answer
 * travels as JSON text: WebDriver BiDi hands the SDK's object back as null.
 */
async function sdkInPage(
  page: Page,
  request: OpenAI.ChatCompletionCreateParamsNonStreaming,
): Promise<OpenAI.ChatCompletion> {
  const text = await page.evaluate(
    async (request) => JSON.stringify(await window.openai.chat.completions.create(request)),
    request,
  );
  return JSON.parse(text) as OpenAI.ChatCompletion;
}

/** Opens the relay's pairing link in `page` and waits until the relay counts it as its engine. */
function serveRelay(page: Page, relay: Relay): Promise<void> {
  return test.step('the tab opens the pairing link and joins the relay', async () => {
    await openFirefoxApp(page, relay.pairingUrl());
    await expect.poll(() => relay.stats().engines.length, { timeout: 60_000 }).toBe(1);
  });
}

/** A relay and a Firefox tab of the app on it, with one model stored through the tab. */
interface FirefoxTab {
  relay: Relay;
  browser: Browser;
  page: Page;
  /** The tab's console errors and uncaught exceptions. */
  problems: string[];
}

/**
 * Starts a relay on `port` and Firefox (on WebGPU or as a person has it), opens the app from the
 * relay, stores `model` through its service worker, optionally serves the relay from the tab (one
 * model load for both ways), and gives the page the openai SDK.
 */
async function openFirefoxTab(
  port: number,
  model: string,
  options: { webgpu: boolean; serve: boolean },
): Promise<FirefoxTab> {
  const relay = await startRelay(port);
  let browser: Browser | undefined;
  try {
    browser = await launchFirefox({ webgpu: options.webgpu });
    const page = await newFirefoxPage(browser);
    const problems = firefoxProblems(page);
    await openFirefoxApp(page, relay.appUrl());
    await createFromFixture(page, `${model}.gguf`);
    if (options.serve) await serveRelay(page, relay);
    await installOpenAi(page);
    return { relay, browser, page, problems };
  } catch (error) {
    await browser?.close();
    await relay.close();
    throw error;
  }
}

async function closeFirefoxTab(tab: FirefoxTab | undefined): Promise<void> {
  await tab?.browser.close();
  await tab?.relay.close();
}

/** Node's openai and ollama clients through the relay; answers what each said. */
async function askThroughRelay(relay: Relay, model: string): Promise<string[]> {
  const openai = await test.step('Node openai through the relay', () =>
    openAiClient(relay).chat.completions.create({ model, messages: greeting, max_tokens: 6 }));
  expect(openai.choices[0]?.finish_reason).toMatch(/stop|length/);
  const ollama = await test.step('Node ollama through the relay', () =>
    new Ollama({ host: relay.url }).chat({
      model,
      messages: greeting,
      options: { num_predict: 6 },
    }));
  expect(ollama.done).toBe(true);
  return [openai.choices[0]!.message.content ?? '', ollama.message.content];
}

test.describe('the app in Firefox ESR on the CPU', () => {
  test.describe.configure({ mode: 'serial', timeout: 120_000 });
  const model = 'tiny-lfm2';
  let tab: FirefoxTab;

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    tab = await openFirefoxTab(testPorts.relayFirefox, model, { webgpu: false, serve: false });
  });

  test.afterAll(() => closeFirefoxTab(tab));

  test("runs lmtab's CPU build and answers through its service worker: JSON, SSE and the openai SDK", async () => {
    const { page, problems } = tab;
    const json = await chatInPage(page, model);
    expect(json.status, json.text).toBe(200);
    const body = JSON.parse(json.text) as {
      choices: { finish_reason: string }[];
      usage: { completion_tokens: number };
    };
    expect(body.usage.completion_tokens).toBe(6);
    expect(body.choices[0]?.finish_reason).toBe('length');

    const sse = await chatInPage(page, model, { stream: true });
    expect(sse.status).toBe(200);
    const events = sse.text.split('\n\n').filter((event) => event.startsWith('data: '));
    expect(events.at(-1)).toBe('data: [DONE]');
    // Tokens that end inside a UTF-8 character wait for the next one: fewer chunks than tokens.
    const chunks = events.slice(0, -1).map(
      (event) =>
        JSON.parse(event.slice('data: '.length)) as {
          choices: { delta: { content?: string }; finish_reason: string | null }[];
        },
    );
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.content).length).toBeGreaterThan(0);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('length');

    const sdk = await sdkInPage(page, { model, messages: greeting, max_tokens: 4 });
    expect(sdk.usage?.completion_tokens).toBeGreaterThan(0);

    const status = await firefoxEngineStatus(page);
    const loaded = status.loaded.find((m) => m.model === model);
    // Firefox ESR on Linux has no WebGPU by default: lmtab's own CPU build, with its relaxed-SIMD
    // kernels and threads (the page is cross-origin isolated), and the reason it is not on a GPU.
    expect(loaded?.info).toMatchObject({
      backend: 'wasm',
      build: 'lmtab-cpu',
      kernels: 'relaxed-simd',
      crossOriginIsolated: true,
      threads: 1,
    });
    expect(loaded?.info.fallbackReason).toMatch(/WebGPU/);
    expect(problems).toEqual([]);
  });

  test("a Firefox tab serves the relay: Node's openai and ollama clients are answered by its engine", async () => {
    const { page, relay, problems } = tab;
    await serveRelay(page, relay);
    const answers = await askThroughRelay(relay, model);
    expect(answers.every((text) => typeof text === 'string')).toBe(true);
    expect(relay.stats().engines[0]?.served).toBeGreaterThanOrEqual(2);
    expect(problems).toEqual([]);
  });
});

test.describe('the app in Firefox ESR on WebGPU (lavapipe)', () => {
  test.describe.configure({ mode: 'serial', timeout: 180_000 });
  /** The tiny F16 model with a vocabulary of words (written by webgpu.setup.ts). */
  const model = 'tiny-lfm2-f16-words';
  let tab: FirefoxTab;

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    // The tab serves the relay from the start: one load on lavapipe (about 20 s) for both ways.
    tab = await openFirefoxTab(testPorts.relayFirefoxGpu, model, { webgpu: true, serve: true });
  });

  test.afterAll(() => closeFirefoxTab(tab));

  test('loads every layer on WebGPU, and answers in the page and through the relay', async () => {
    const { page, relay, problems } = tab;
    const request: OpenAI.ChatCompletionCreateParamsNonStreaming = {
      model,
      messages: greeting,
      max_tokens: 4,
      ...noEarlyEnd,
    };
    const answer = await sdkInPage(page, request);
    expect(answer.usage?.completion_tokens).toBe(4);

    const loaded = (await firefoxEngineStatus(page)).loaded.find((m) => m.model === model);
    const lines = loaded?.info.backendLines ?? [];
    const report = readOffload(lines);
    // llama.cpp's own log: its WebGPU backend opened Firefox's adapter (whose info strings Firefox
    // leaves empty) and offloaded every layer; the token lookup on the CPU, the model on WebGPU.
    expect(notOnGpu(report), lines.join('\n')).toBeUndefined();
    expect(report.graph?.splits, lines.join('\n')).toBeLessThanOrEqual(2);
    expect(loaded?.info).toMatchObject({ backend: 'webgpu', gpuLayers: report.layers?.total });
    expect(loaded?.info.gpu?.features).toContain('shader-f16');

    await askThroughRelay(relay, model);
    expect(problems).toEqual([]);
  });
});
