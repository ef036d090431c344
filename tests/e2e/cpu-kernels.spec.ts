import { expect, test, type Page } from '@playwright/test';
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withoutKernels } from '../../wasm/glue-patches.mjs';
import { testPorts } from '../support/test-ports.js';
import { importModel, openApp, openTab } from './support/app.js';
import { watchConsole } from './support/console.js';
import { openPage, startRelay } from './support/relay.js';

interface TokenLogprob {
  token: string;
  bytes: number[] | null;
  logprob: number;
  top_logprobs: { token: string; logprob: number }[];
}

/**
 * A sampled answer's tokens with their logprobs, and its prompt's token count, from the page's own
 * /v1/chat/completions. Sampled with a seed, not greedy: a greedy answer reports each token's
 * probability after sampling, 1.
 */
function seededAnswer(
  page: Page,
  model: string,
): Promise<{ content: TokenLogprob[]; promptTokens: number }> {
  return page.evaluate(async (model) => {
    const response = await fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        model,
        messages: [{ role: 'user', content: 'Count the sheep in the field one by one.' }],
        max_tokens: 48,
        ignore_eos: true,
        temperature: 1,
        top_k: 0,
        min_p: 0,
        seed: 7,
        logprobs: true,
        top_logprobs: 2,
      }),
    });
    const body = await response.json();
    if (response.status !== 200) throw new Error(JSON.stringify(body));
    return { content: body.choices[0].logprobs.content, promptTokens: body.usage.prompt_tokens };
  }, model);
}

async function kernelsShown(page: Page, model: string): Promise<string> {
  await openTab(page, 'Developer');
  const engine = page.getByRole('tabpanel', { name: 'Developer' }).getByRole('region', {
    name: 'Engine',
  });
  const row = engine.getByRole('row', { name: new RegExp(`^${model}`) });
  await expect(row).toContainText('KV cache', { timeout: 60_000 });
  return row.innerText();
}

test('a Q4_K_M model on the CPU build runs lmtab’s relaxed-SIMD kernels and answers as with ggml’s own', async ({
  page,
  browser,
}) => {
  test.setTimeout(300_000);
  const problems = watchConsole(page);
  await openApp(page);
  const model = await importModel(page, 'tiny-lfm2-q4_k_m.gguf');
  const { content: withKernels, promptTokens } = await seededAnswer(page, model);
  // An odd number of prompt tokens: ggml's mul_mat gave up on tiles for the whole prompt then; with
  // lmtab's edit (wasm/cpp-patches.mjs) all but the last column go in tiles, the last alone.
  expect(promptTokens % 2).toBe(1);
  // An entry per piece of text: tokens that end inside a character share one.
  expect(withKernels.length).toBeGreaterThanOrEqual(8);
  expect(await kernelsShown(page, model)).toContain('Relaxed SIMD kernels');

  // The same app with the kernels taken out of the CPU build's glue: ggml's own dot products run.
  const appDir = test.info().outputPath('app-ggml-kernels');
  await cp('dist', appDir, { recursive: true });
  const assets = join(appDir, 'assets');
  const [glueName] = (await readdir(assets)).filter((name) => /^lmtab-cpu-.*\.js$/.test(name));
  const glue = await readFile(join(assets, glueName), 'utf8');
  expect(glue).toContain('lmtabUseKernels(wasmTable);');
  await writeFile(join(assets, glueName), withoutKernels(glue));
  const relay = await startRelay(testPorts.kernelsApp, { appDir });
  const context = await browser.newContext();
  try {
    const other = await context.newPage();
    const otherProblems = watchConsole(other);
    await openPage(other, relay.url);
    await importModel(other, 'tiny-lfm2-q4_k_m.gguf');
    const { content: withGgml } = await seededAnswer(other, model);
    expect(await kernelsShown(other, model)).not.toContain('Relaxed SIMD kernels');

    // The kernels sum the same integers as ggml's and round Q4_K's floats in ggml's order; Q6_K's
    // last bits may differ. With the same seed the same tokens are drawn (sampled from all tokens:
    // a top-k or min-p cut could fall between two tokens those bits order differently).
    let compared = 0;
    for (const [i, ours] of withKernels.entries()) {
      const theirs = withGgml[i];
      if (!theirs || JSON.stringify(ours.bytes) !== JSON.stringify(theirs.bytes)) break;
      expect(Math.abs(ours.logprob - theirs.logprob), `token ${i}`).toBeLessThan(1e-5);
      expect(ours.top_logprobs.map((top) => top.token)).toEqual(
        theirs.top_logprobs.map((top) => top.token),
      );
      ours.top_logprobs.forEach((top, k) =>
        expect(Math.abs(top.logprob - theirs.top_logprobs[k].logprob)).toBeLessThan(1e-5),
      );
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(16);
    expect(otherProblems).toEqual([]);
  } finally {
    await context.close();
    await relay.close();
  }
  expect(problems).toEqual([]);
});
