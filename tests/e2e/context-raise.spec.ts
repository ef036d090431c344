import { expect, test } from '@playwright/test';
import { join } from 'node:path';
import { lfm2Model, writeModelFile } from '../support/lfm2-fixtures.js';
import { importModel, openApp, openTab } from './support/app.js';
import { watchConsole } from './support/console.js';
import { fixtureDir } from './support/paths.js';

test('a prompt longer than the loaded context reloads the model with a longer one, up to its training context, and says so', async ({
  page,
}) => {
  test.setTimeout(180_000);
  // The tiny model, trained (so its metadata says) for 32,768 tokens; lmtab loads 4,096 by default.
  await writeModelFile(
    join(fixtureDir, 'tiny-lfm2-32k.gguf'),
    lfm2Model({ name: 'tiny-lfm2-32k', contextLength: 32_768 }),
  );
  const problems = watchConsole(page);
  await openApp(page);
  const model = await importModel(page, 'tiny-lfm2-32k.gguf');
  const ask = (content: string) =>
    page.evaluate(
      async ({ model, content }) => {
        const response = await fetch('/v1/chat/completions', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            model,
            messages: [{ role: 'user', content }],
            max_tokens: 2,
            ignore_eos: true,
          }),
        });
        return { status: response.status, body: await response.json() };
      },
      { model, content },
    );
  const engine = async () =>
    (await page.evaluate(async () => (await fetch('/api/lmtab/engine')).json())).loaded.find(
      (m: { model: string }) => m.model === model,
    );

  expect((await ask('Hello')).status).toBe(200);
  expect((await engine()).contextLength).toBe(4096);

  // About 12,000 tokens: over 4,096, within the 32,768 the model was trained for.
  const long = await ask('x '.repeat(6000));
  expect(long.status, JSON.stringify(long.body)).toBe(200);
  expect(long.body.usage.prompt_tokens).toBeGreaterThan(8192);
  expect(long.body.choices[0].finish_reason).toBe('length');
  const loaded = await engine();
  expect(loaded.contextLength).toBe(16_384);
  expect(loaded.info.contextReason).toMatch(
    /^raised from 4,096 to 16,384 tokens of context for a prompt of \d{2},\d{3} tokens$/,
  );
  await openTab(page, 'Developer');
  await expect(page.getByTestId('context-reason')).toContainText('raised from 4,096 to 16,384');

  expect(problems).toEqual([]);

  // Past the training context nothing can hold it: the 400 names the sizes, as before.
  const tooLong = await ask('x '.repeat(20_000));
  expect(tooLong.status).toBe(400);
  expect(tooLong.body.error.code).toBe('context_length_exceeded');
  expect(tooLong.body.error.message).toMatch(/^The prompt is \d{2},\d{3} tokens/);
});
