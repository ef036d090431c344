import { chromium, expect, test, type BrowserContext, type Page } from '@playwright/test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lfm2Model, lfm2MoeModel, writeModelFile } from '../support/lfm2-fixtures.js';
import { importModel, openApp, withEngineSettings } from './support/app.js';
import { watchConsole } from './support/console.js';
import { fixtureDir } from './support/paths.js';

// Files of the published sizes, with zero weights (quick to write; the engine runs every layer on
// them all the same). LFM2-2.6B in Q8_0 (2.73 GB) is over the 2 GiB that one allocation, one file
// position and one address of the wasm32 engine could reach; LFM2-8B-A1B in Q4_K_M (4.73 GB) is
// over the 4 GiB it can address at all, and runs on the memory64 build.
const bigFile = 'lfm2-2.6b-q8_0-zeros.gguf';
const moeFile = 'lfm2moe-8b-a1b-q4_k_m-zeros.gguf';
// LFM2-1.2B in F16 (2.34 GB): over 2 GiB too, with F16 weights.
const f16File = 'lfm2-1.2b-f16-zeros.gguf';

// One browser with its profile on disk: an in-memory context's storage quota (about 10 GB here)
// refuses a 4.7 GB import after a 2.7 GB one.
test.describe.configure({ mode: 'serial' });
let workDir: string;
let context: BrowserContext;
let page: Page;

test.beforeAll(async ({ baseURL }) => {
  test.setTimeout(300_000);
  const big = await writeModelFile(
    join(fixtureDir, bigFile),
    lfm2Model({
      size: '2.6B',
      type: 'Q8_0',
      weights: 'zeros',
      fillers: 'words',
      name: 'lfm2-2.6b-zeros',
    }),
  );
  expect(big.bytes).toBeGreaterThan(2.5 * 2 ** 30);
  const f16 = await writeModelFile(
    join(fixtureDir, f16File),
    lfm2Model({
      size: '1.2B',
      type: 'F16',
      weights: 'zeros',
      fillers: 'words',
      name: 'lfm2-1.2b-zeros',
    }),
  );
  expect(f16.bytes).toBeGreaterThan(2.1 * 2 ** 30);
  const moe = await writeModelFile(
    join(fixtureDir, moeFile),
    lfm2MoeModel({
      size: '8B-A1B',
      type: 'Q4_K_M',
      weights: 'zeros',
      name: 'lfm2moe-8b-a1b-zeros',
    }),
  );
  expect(moe.bytes).toBeGreaterThan(4.3 * 2 ** 30);
  workDir = await mkdtemp(join(tmpdir(), 'lmtab-real-sizes-'));
  context = await chromium.launchPersistentContext(join(workDir, 'profile'), {
    executablePath: process.env.LMTAB_BROWSER ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-background-networking', '--no-first-run'],
    baseURL,
  });
  // One ggml thread, as in every spec: beside another spec a second thread waits for a core at
  // every op's barrier.
  await withEngineSettings(context, { threads: 1 });
  page = context.pages()[0] ?? (await context.newPage());
  await openApp(page);
});

test.afterAll(async () => {
  await context?.close();
  // The profile holds 9.8 GB of stored models: nothing may stay behind.
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

interface ChatAnswer {
  status: number;
  body: {
    choices?: { message: { content: string }; finish_reason: string }[];
    usage?: { completion_tokens: number };
    error?: { message: string; code: string; type: string };
  };
}

/**
 * Asks `model` for four tokens through the page's service worker. A request that fails outright
 * (the service worker's fetch cut off) says what the page's console said meanwhile.
 */
async function chat(model: string, problems: string[]): Promise<ChatAnswer> {
  try {
    return await askPage(model);
  } catch (error) {
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}; console: ${problems.join(' | ')}`,
      {
        cause: error,
      },
    );
  }
}

function askPage(model: string): Promise<ChatAnswer> {
  return page.evaluate(async (model) => {
    const response = await fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        model,
        messages: [{ role: 'user', content: 'Say hello.' }],
        max_tokens: 4,
        ignore_eos: true,
      }),
    });
    return { status: response.status, body: await response.json() };
  }, model);
}

async function loadedModels(): Promise<{ model: string; info: Record<string, unknown> }[]> {
  const engine = await page.evaluate(async () => (await fetch('/api/lmtab/engine')).json());
  return engine.loaded;
}

for (const [file, label] of [
  [bigFile, 'a 2.73 GB file (LFM2-2.6B Q8_0)'],
  [f16File, 'a 2.34 GB F16 file (LFM2-1.2B F16)'],
]) {
  test(`${label} loads on the CPU build and answers`, async () => {
    test.setTimeout(600_000);
    const problems = watchConsole(page);
    const model = await importModel(page, file, undefined, { timeout: 300_000 });
    const answer = await chat(model, problems);
    expect(answer.status, `${JSON.stringify(answer.body)}; console: ${problems.join(' | ')}`).toBe(
      200,
    );
    expect(answer.body.usage?.completion_tokens).toBe(4);
    expect(answer.body.choices?.[0].finish_reason).toBe('length');
    const loaded = (await loadedModels()).find((m) => m.model === model);
    expect(loaded?.info).toMatchObject({ backend: 'wasm', build: 'lmtab-cpu' });
    expect(problems).toEqual([]);
  });
}

test('a 4.7 GB file (LFM2-8B-A1B Q4_K_M), past what wasm32 can address, loads on the memory64 build with lmtab kernels and answers', async () => {
  test.setTimeout(900_000);
  const problems = watchConsole(page);
  const model = await importModel(page, moeFile, undefined, { timeout: 300_000 });
  const answer = await chat(model, problems);
  expect(answer.status, `${JSON.stringify(answer.body)}; console: ${problems.join(' | ')}`).toBe(
    200,
  );
  expect(answer.body.usage?.completion_tokens).toBe(4);
  expect(answer.body.choices?.[0].finish_reason).toBe('length');
  const loaded = (await loadedModels()).find((m) => m.model === model);
  // wllama's stock build with its memory raised past 4 GiB (src/engine/builds/memory64-build.ts), with
  // lmtab's wasm64 kernels in the place of ggml's generic ones (src/engine/builds/memory64-kernels.ts).
  expect(loaded?.info).toMatchObject({
    backend: 'wasm',
    build: 'wllama 3.13.0 memory64',
    kernels: 'relaxed-simd',
  });
  expect(problems).toEqual([]);
});
