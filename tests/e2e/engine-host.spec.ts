import { expect, test, type Page } from '@playwright/test';
import { importModel, openApp } from './support/app.js';

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

test('uses WebGPU when an adapter llama.cpp can use exists, and says why not otherwise @webgpu', async ({
  page,
}) => {
  test.setTimeout(300_000);
  await openApp(page);
  const model = await importModel(page, 'tiny-lfm2.gguf');
  const probe = await page.evaluate(async () => {
    const adapter = await (
      navigator as unknown as {
        gpu: { requestAdapter(): Promise<{ features: Set<string> } | null> };
      }
    ).gpu.requestAdapter();
    return { adapter: !!adapter, shaderF16: adapter?.features.has('shader-f16') ?? false };
  });
  expect(probe.adapter).toBe(true);
  const answer = await chat(page, model);
  expect(answer.status).toBe(200);
  const engine = await page.evaluate(async () => (await fetch('/api/lmtab/engine')).json());
  test.info().annotations.push({ type: 'engine', description: JSON.stringify(engine) });
  if (probe.shaderF16) {
    expect(engine).toMatchObject({ backend: 'webgpu', adapter: expect.any(String) });
    expect(engine.gpuLayers).toBeGreaterThan(0);
  } else {
    // SwiftShader has no shader-f16, which llama.cpp's WebGPU backend requires: the engine must say so.
    expect(engine).toMatchObject({ backend: 'wasm', gpuLayers: 0 });
    expect(engine.fallbackReason).toContain('shader-f16');
  }
  expect(engine.loaded[0]).toMatchObject({ model, active: 0 });
});
