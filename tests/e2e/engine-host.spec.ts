import { expect, test, type Page } from '@playwright/test';
import { importModel, openApp } from './support/app.js';
import { engineStatus, expectOnGpu } from './support/gpu-offload.js';

const chat = (page: Page, model: string) =>
  page.evaluate(async (model) => {
    const response = await fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        model,
        messages: [{ role: 'user', content: 'Hello' }],
        max_tokens: 4,
        temperature: 0,
      }),
    });
    return { status: response.status, body: await response.json() };
  }, model);

/** Opens the app, imports the tiny model, has it answer, and reads the engine's status (kept as an annotation). */
async function answerOnce(page: Page) {
  await openApp(page);
  const model = await importModel(page, 'tiny-lfm2.gguf');
  const answer = await chat(page, model);
  expect(answer.status).toBe(200);
  const engine = await engineStatus(page);
  test.info().annotations.push({ type: 'engine', description: JSON.stringify(engine) });
  return { model, engine };
}

test('one tab holds the engine, others are served through it, and another takes over when it closes', async ({
  context,
}) => {
  const first = await context.newPage();
  await openApp(first);
  const model = await importModel(first, 'tiny-lfm2.gguf');
  await expect(first.locator('lmtab-app')).toHaveAttribute('data-engine-host', '');

  const second = await context.newPage();
  await openApp(second);
  await expect(second.locator('lmtab-app')).not.toHaveAttribute('data-engine-host', '');
  const served = await chat(second, model);
  expect(served.status).toBe(200);
  expect(served.body.choices[0].message.content.length).toBeGreaterThan(0);

  await first.close();
  await expect(second.locator('lmtab-app')).toHaveAttribute('data-engine-host', '');
  const afterTakeover = await chat(second, model);
  expect(afterTakeover.status).toBe(200);
  expect(afterTakeover.body.choices[0].message.content.length).toBeGreaterThan(0);
});

test('the first visit is served without a reload, and the chat page streams an answer', async ({
  page,
}) => {
  await openApp(page);
  const model = await importModel(page, 'tiny-lfm2.gguf');
  await expect(page.getByLabel('Model', { exact: true })).toHaveValue(model);
  // A bounded answer: a random-weight model may otherwise talk until the context is full.
  await page.getByRole('spinbutton', { name: 'Max tokens', exact: true }).fill('32');
  await page.getByLabel('Message').fill('Hello, model');
  await page.getByRole('button', { name: 'Send' }).click();
  const answer = page.locator('[data-role="assistant"]').first();
  await expect(answer.locator('.stats')).toContainText('tok/s', { timeout: 120_000 });
  // The answer's text lives in shadow roots, which innerText skips; Playwright's text pierces them.
  await expect(answer).toContainText(/\S[\s\S]{10,}/);
  await expect(page.getByTestId('engine-info')).toContainText('wllama on WebAssembly');
});

test('uses WebGPU where the adapter has shader-f16, with every layer offloaded @webgpu', async ({
  page,
}) => {
  test.setTimeout(300_000);
  const { model, engine } = await answerOnce(page);
  expect(engine.gpu?.features).toContain('shader-f16');
  expect(engine).toMatchObject({ backend: 'webgpu', adapter: expect.stringContaining('mesa') });
  // From llama.cpp's own lines of the load: a model that landed on the CPU fails here.
  await expectOnGpu(page, model, { splits: 2 });
  expect(engine.loaded[0]).toMatchObject({ model, active: 0 });
});

test('on an adapter without shader-f16 (SwiftShader) runs on the CPU and says why @swiftshader', async ({
  page,
}) => {
  test.setTimeout(300_000);
  const { model, engine } = await answerOnce(page);
  expect(engine.gpu?.features).not.toContain('shader-f16');
  // llama.cpp's WebGPU backend requires shader-f16: the engine must say so.
  expect(engine).toMatchObject({ backend: 'wasm', gpuLayers: 0 });
  expect(engine.fallbackReason).toContain('shader-f16');
  expect(engine.loaded[0]).toMatchObject({ model, active: 0 });
});
