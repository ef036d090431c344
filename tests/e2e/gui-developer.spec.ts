import { expect, test } from './support/reused-context.js';
import { importModel, openApp, openTab } from './support/app.js';
import { watchConsole } from './support/console.js';

test.describe('Developer tab', () => {
  test.setTimeout(300_000);

  test('shows the compute path and the loaded model with its busy slots, live', async ({
    page,
  }, testInfo) => {
    const problems = watchConsole(page);
    await openApp(page);
    const model = await importModel(page, 'tiny-lfm2.gguf');
    await openTab(page, 'Developer');
    const panel = page.getByRole('tabpanel', { name: 'Developer' });
    // The relay's server panel sits above this tab's own sections.
    await expect(panel.locator('lmtab-server-panel')).toHaveCount(1);
    const engine = panel.getByRole('region', { name: 'Engine' });
    await expect(engine).toContainText('wllama');
    await expect(engine).toContainText('WebAssembly on the CPU');
    await expect(engine).toContainText(/Cross-origin isolated\s*yes/);
    await expect(engine).toContainText(/CPU threads\s*\d+/);
    await expect(engine).toContainText('No model is loaded');

    // A long streamed answer holds a slot while the panel refreshes on its own.
    await page.evaluate((model) => {
      const controller = new AbortController();
      (window as unknown as { stopAnswer: () => void }).stopAnswer = () => controller.abort();
      void fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          model,
          messages: [{ role: 'user', content: 'Write a long story' }],
          stream: true,
          max_tokens: 4000,
          ignore_eos: true,
        }),
        signal: controller.signal,
      })
        .then(async (response) => {
          const reader = response.body!.getReader();
          for (;;) if ((await reader.read()).done) return;
        })
        .catch(() => undefined);
    }, model);
    const row = engine.getByRole('row', { name: new RegExp(`^${model}`) });
    await expect(row).toContainText('1 of 4', { timeout: 120_000 });
    await expect(row).toContainText('busy');
    await page.screenshot({ path: testInfo.outputPath('developer.png'), fullPage: true });
    await testInfo.attach('developer tab', { path: testInfo.outputPath('developer.png') });
    await page.evaluate(() => (window as unknown as { stopAnswer: () => void }).stopAnswer());
    await expect(row).toContainText('0 of 4', { timeout: 60_000 });
    await expect(row).toContainText('min idle');
    expect(problems).toEqual([]);
  });

  test('on the CPU build a model whose heads are whole Q8_0 blocks gets a Q8_0 KV cache; others keep F16', async ({
    page,
  }) => {
    const problems = watchConsole(page);
    await openApp(page);
    const wide = await importModel(page, 'tiny-lfm2-heads32.gguf');
    const narrow = await importModel(page, 'tiny-lfm2.gguf');
    const chat = (model: string) =>
      page.evaluate(async (model) => {
        // A few hundred tokens in the cache before the answer, so attention reads it.
        const words = Array.from({ length: 300 }, (_, i) => `w${i}`).join(' ');
        const response = await fetch('/v1/chat/completions', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            model,
            messages: [{ role: 'user', content: words }],
            max_tokens: 16,
            ignore_eos: true,
            temperature: 0,
          }),
        });
        return { status: response.status, body: await response.json() };
      }, model);
    await openTab(page, 'Developer');
    const engine = page.getByRole('tabpanel', { name: 'Developer' }).getByRole('region', {
      name: 'Engine',
    });
    const answer = await chat(wide);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.usage.prompt_tokens).toBeGreaterThan(300);
    expect(answer.body.usage.completion_tokens).toBe(16);
    await expect(engine.getByRole('row', { name: new RegExp(`^${wide}`) })).toContainText('Q8_0', {
      timeout: 60_000,
    });
    // Heads of 16 cannot be cached in Q8_0 blocks: llama.cpp's default.
    const other = await chat(narrow);
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    expect(other.body.usage.completion_tokens).toBe(16);
    await expect(engine.getByRole('row', { name: new RegExp(`^${narrow}`) })).toContainText('F16', {
      timeout: 60_000,
    });

    // The person chooses llama.cpp's default: after a restart the Q8_0-capable model keeps F16.
    const settings = page.getByRole('region', { name: 'Load settings' });
    await settings.getByLabel('KV cache').selectOption('f16');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    const reloaded = page.waitForEvent('load');
    await settings.getByRole('button', { name: 'Restart engine' }).click();
    await reloaded;
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await expect(settings.getByLabel('KV cache')).toHaveValue('f16');
    const again = await chat(wide);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    await expect(engine.getByRole('row', { name: new RegExp(`^${wide}`) })).toContainText('F16', {
      timeout: 60_000,
    });
    expect(problems).toEqual([]);
  });

  test('load settings are checked, saved, and apply after "Restart engine"', async ({ page }) => {
    const problems = watchConsole(page);
    await openApp(page);
    await openTab(page, 'Developer');
    const settings = page.getByRole('region', { name: 'Load settings' });
    await expect(settings).toContainText('0 runs on the CPU only');
    await settings.getByLabel('CPU threads').fill('0');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await expect(settings.getByRole('alert')).toContainText(
      'CPU threads must be a whole number from 1 to',
    );

    await settings.getByLabel('GPU layers').fill('0');
    await settings.getByLabel('Context length').fill('2048');
    await settings.getByLabel('CPU threads').fill('1');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await expect(settings.getByRole('status')).toContainText(
      'Saved. Load settings apply the next time the engine starts.',
    );
    await expect(settings.getByRole('alert')).toHaveCount(0);
    const reloaded = page.waitForEvent('load');
    await settings.getByRole('button', { name: 'Restart engine' }).click();
    await reloaded;
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);

    await expect(page.getByRole('tab', { name: 'Developer' })).toHaveAttribute(
      'aria-selected',
      'true',
    );
    await expect(page.getByTestId('engine-info')).toHaveText('wllama on WebAssembly, 1 thread');
    await expect(settings.getByLabel('CPU threads')).toHaveValue('1');
    await expect(settings.getByLabel('Context length')).toHaveValue('2048');
    const model = await importModel(page, 'tiny-lfm2.gguf');
    await page.evaluate(
      (model) =>
        fetch('/api/generate', { method: 'POST', body: JSON.stringify({ model, stream: false }) }),
      model,
    );
    const engine = page.getByRole('region', { name: 'Engine' });
    await expect(engine).toContainText(/GPU layers\s*0 \(CPU only\)/);
    await expect(engine).toContainText('GPU layers are set to 0 (CPU only)');
    await expect(engine.getByRole('row', { name: new RegExp(`^${model}`) })).toContainText(
      '2,048 tokens',
      { timeout: 60_000 },
    );
    expect(problems).toEqual([]);
  });
});
