import { expect, test } from '@playwright/test';
import { fileURLToPath } from 'node:url';
import { ensureChromiumWebgpu } from '../support/webgpu/chromium-webgpu.mjs';
import { importModel, openApp, openTab } from '../e2e/support/app.js';
import { expectOnGpu } from '../e2e/support/gpu-offload.js';
import { featuredCard, repos, startE2eHub, useHub } from '../e2e/support/hub.js';

/** Where the screenshots of docs/gui.md and the README live (kept in the repository). */
const outDir = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));

test.use({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });

test('the four tabs, with models downloaded from the fake hub', async ({ page }) => {
  const hub = await startE2eHub();
  try {
    await useHub(page, hub);
    await openApp(page);

    // Discover: the featured picks, two of them downloaded the way a new user would.
    await openTab(page, 'Discover');
    for (const [repo, name] of [
      [repos.text, 'LFM2 350M'],
      [repos.vision, 'LFM2-VL 450M'],
    ] as const) {
      await featuredCard(page, repo)
        .getByRole('button', { name: `Download ${name}` })
        .click();
      await expect(
        featuredCard(page, repo).getByRole('button', { name: `Chat with ${name}` }),
      ).toBeVisible();
    }
    await page
      .getByRole('button', { name: 'Dismiss hf.co/LiquidAI/LFM2-350M-GGUF:Q4_K_M' })
      .click();
    await page
      .getByRole('button', { name: 'Dismiss hf.co/LiquidAI/LFM2-VL-450M-GGUF:Q4_K_M' })
      .click();
    await page.locator('lmtab-discover-view').evaluate((view) => view.scrollTo(0, 0));
    await page.mouse.move(0, 0);
    await page.screenshot({ path: `${outDir}discover.png` });

    // Chat: a short exchange. The fixture's random weights write gibberish, so the chat uses a copy
    // whose name says so: no reader takes its answer for the real LFM2's.
    const testModel = 'test-model-random-weights';
    const copied = await page.evaluate(
      ([source, destination]) =>
        fetch('/api/copy', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ source, destination }),
        }).then((response) => response.status),
      [`hf.co/${repos.text}:Q4_K_M`, testModel] as const,
    );
    expect(copied).toBe(200);
    await openTab(page, 'Chat');
    await page.getByLabel('Model', { exact: true }).selectOption(testModel);
    const maxTokens = page.getByRole('spinbutton', { name: 'Max tokens', exact: true });
    if (!(await maxTokens.isVisible())) {
      await page.getByRole('button', { name: 'Chat settings' }).click();
    }
    await maxTokens.fill('24');
    await maxTokens.press('Tab');
    await page.getByLabel('Message').fill('Hello! What can you do?');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(page.getByTestId('stats')).toContainText('finish:', { timeout: 150_000 });
    await page.mouse.move(0, 0);
    await page.screenshot({ path: `${outDir}chat.png` });
    await page.evaluate(
      (model) =>
        fetch('/api/delete', {
          method: 'DELETE',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ model }),
        }),
      testModel,
    );

    await openTab(page, 'Developer');
    await page.mouse.move(0, 0);
    await page.screenshot({ path: `${outDir}developer.png` });

    await openTab(page, 'My Models');
    await expect(page.locator('lmtab-models-view li')).toHaveCount(2);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: `${outDir}my-models.png` });
  } finally {
    await hub.close();
  }
});

test('the Developer tab with a model on WebGPU (lavapipe) @webgpu', async ({ page }) => {
  ensureChromiumWebgpu();
  await openApp(page);
  const model = await importModel(page, 'tiny-lfm2.gguf');
  const status = await page.evaluate(
    (model) =>
      fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4 }),
      }).then((response) => response.status),
    model,
  );
  expect(status).toBe(200);
  // The picture shows a model on the GPU, or it is not taken.
  await expectOnGpu(page, model, { splits: 2 });
  await openTab(page, 'Developer');
  await expect(page.getByTestId('gpu-details')).toBeVisible();
  await page.mouse.move(0, 0);
  await page.screenshot({ path: `${outDir}developer-webgpu.png`, fullPage: true });
});
