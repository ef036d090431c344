import { type Page } from '@playwright/test';
import { expect, test } from './support/reused-context.js';
import { join } from 'node:path';
import { writeModelFile } from '../support/lfm2-fixtures.js';
import { lfm3Model, lfm3VlModel, lfm3VlProjector } from '../support/lfm3-fixture.js';
import { importModel, openApp, pngDataUri } from './support/app.js';
import { watchConsole } from './support/console.js';
import { fixtureDir } from './support/paths.js';

test('an LFM3 model (gated heads, sliding-window and full attention) loads on the CPU build and answers', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await writeModelFile(join(fixtureDir, 'tiny-lfm3.gguf'), lfm3Model());
  const problems = watchConsole(page);
  await openApp(page);
  const model = await importModel(page, 'tiny-lfm3.gguf');
  const answer = await page.evaluate(async (model) => {
    const response = await fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        model,
        messages: [{ role: 'user', content: 'Count the sheep in the field.' }],
        max_tokens: 8,
        ignore_eos: true,
        logprobs: true,
      }),
    });
    return { status: response.status, body: await response.json() };
  }, model);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.body.usage.completion_tokens).toBe(8);
  // Real numbers from every layer: a broken graph gives NaN logits, which llama.cpp reports as such.
  for (const token of answer.body.choices[0].logprobs.content) {
    expect(Number.isFinite(token.logprob)).toBe(true);
  }
  const engine = await page.evaluate(async () => (await fetch('/api/lmtab/engine')).json());
  const loaded = engine.loaded.find((m: { model: string }) => m.model === model);
  expect(loaded.info).toMatchObject({ backend: 'wasm', build: 'lmtab-cpu' });
  expect(problems).toEqual([]);
});

/**
 * A greedy answer of 12 tokens, and the build that ran it. Without logprobs, both builds sample
 * with the same bans (logprobs make wllama's stock build ban more tokens, which it cannot
 * serialize as alternatives), and llama.cpp lists probabilities after sampling, which for greedy
 * decoding is one candidate at probability 1: the greedy text is the comparison.
 */
async function greedyAnswer(page: Page, model: string): Promise<{ text: string; build: string }> {
  const answer = await page.evaluate(async (model) => {
    const response = await fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        model,
        messages: [{ role: 'user', content: 'Count the sheep in the field.' }],
        max_tokens: 12,
        ignore_eos: true,
        temperature: 0,
      }),
    });
    return { status: response.status, body: await response.json() };
  }, model);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.body.usage.completion_tokens).toBe(12);
  const engine = await page.evaluate(async () => (await fetch('/api/lmtab/engine')).json());
  const loaded = engine.loaded.find((m: { model: string }) => m.model === model);
  return { text: answer.body.choices[0].message.content, build: loaded.info.build };
}

test("lmtab's LFM3 backport answers as llama.cpp b12211's own LFM3 (wllama 3.13.0's stock build) does", async ({
  page,
}) => {
  test.setTimeout(240_000);
  await writeModelFile(join(fixtureDir, 'tiny-lfm3.gguf'), lfm3Model());
  const problems = watchConsole(page);
  // Both builds with an F16 cache, so that only the model's code differs (and the kernels' rounding).
  await page.goto('/');
  await page.evaluate(() =>
    localStorage.setItem('lmtab.engine-settings', JSON.stringify({ kvCache: 'f16' })),
  );
  await openApp(page);
  const model = await importModel(page, 'tiny-lfm3.gguf');
  const backport = await greedyAnswer(page, model);
  expect(backport.build).toBe('lmtab-cpu');

  await page.evaluate(() =>
    localStorage.setItem(
      'lmtab.engine-settings',
      JSON.stringify({ kvCache: 'f16', cpuEngine: 'wllama' }),
    ),
  );
  await page.reload();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  const upstream = await greedyAnswer(page, model);
  expect(upstream.build).toBe('wllama 3.13.0');

  // The same 12 greedy tokens from a random-weight model, whose argmax any difference in the graph
  // (norms, the gate, either RoPE base, the sliding window) would change: the backport computes
  // what upstream's LFM3 computes, up to float rounding.
  expect(upstream.text.length).toBeGreaterThan(0);
  expect(upstream.text).toBe(backport.text);
  expect(problems).toEqual([]);
});

test("an LFM3-VL projector (hybrid attention and convolution encoder) answers about an image on wllama 3.13.0's build", async ({
  page,
}) => {
  test.setTimeout(240_000);
  await writeModelFile(join(fixtureDir, 'tiny-lfm3-vl.gguf'), lfm3VlModel());
  await writeModelFile(join(fixtureDir, 'mmproj-tiny-lfm3-vl.gguf'), lfm3VlProjector());
  const problems = watchConsole(page);
  await openApp(page);
  const model = await importModel(page, 'tiny-lfm3-vl.gguf', 'mmproj-tiny-lfm3-vl.gguf');
  const image = await pngDataUri(page);
  const answers = await page.evaluate(
    async ([model, image]) => {
      const ask = async (content: unknown, logprobs: boolean) => {
        const response = await fetch('/v1/chat/completions', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            model,
            messages: [{ role: 'user', content }],
            // One sampled token with a fixed seed: wllama 3.13.0's stock glue serializes results with
            // a strict JSON dump, so logprobs naming a lone UTF-8 lead-byte token fail the request
            // (lmtab's own build replaces such bytes); this seed's first token is a whole character.
            max_tokens: 1,
            seed: 1,
            logprobs,
          }),
        });
        return { status: response.status, body: await response.json() };
      };
      const textOnly = await ask('What is in this picture?', false);
      const vision = await ask(
        [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image_url', image_url: { url: image } },
        ],
        true,
      );
      return { textOnly, vision };
    },
    [model, image] as const,
  );
  expect(answers.textOnly.status, JSON.stringify(answers.textOnly.body)).toBe(200);
  expect(answers.vision.status, JSON.stringify(answers.vision.body)).toBe(200);
  // The image's embeddings reached the text model: NaN from the vision graph would make the first
  // answer token's distribution NaN. Sampled, so the log-probability is a real one (greedy's is 0).
  const [first] = answers.vision.body.choices[0].logprobs.content;
  expect(Number.isFinite(first.logprob)).toBe(true);
  expect(first.logprob).toBeLessThan(0);
  // The 64x48 picture became 8x6 patches, merged 2 by 2 into 12 image tokens, between
  // <|vision_start|> and <|vision_end|>.
  expect(answers.vision.body.usage.prompt_tokens - answers.textOnly.body.usage.prompt_tokens).toBe(
    14,
  );
  const engine = await page.evaluate(async () => (await fetch('/api/lmtab/engine')).json());
  const loaded = engine.loaded.find((m: { model: string }) => m.model === model);
  expect(loaded.info).toMatchObject({ backend: 'wasm', build: 'wllama 3.13.0' });
  expect(loaded.info.buildReason).toMatch(/lfm3vl projector/);
  expect(problems).toEqual([]);
});
