import { expect, test } from '@playwright/test';
import { join } from 'node:path';
import { writeModelFile } from '../support/lfm2-fixtures.js';
import { lfm3Model } from '../support/lfm3-fixture.js';
import { importModel, openApp } from './support/app.js';
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
