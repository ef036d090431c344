import { type Page } from '@playwright/test';
import { expect, test } from './support/reused-context.js';
import { gpuWorkerPrologue, loseDeviceMessage } from '../../src/engine/index.js';
import { importModel, openApp, openTab } from './support/app.js';
import { expectOnGpu } from './support/gpu-offload.js';

/**
 * Streams a long answer in `page` and, after its first chunk, runs `act` (from Node): answers the
 * stream's status and text once it ends, and what `act` gave.
 */
async function streamAnd<T>(page: Page, model: string, act: () => Promise<T>) {
  const streamed = page.evaluate(async (model) => {
    const response = await fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        model,
        stream: true,
        max_tokens: 3000,
        ignore_eos: true,
        temperature: 0,
        messages: [{ role: 'user', content: 'Write a very long story' }],
      }),
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    (window as { firstChunk?: boolean }).firstChunk = true;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    return { status: response.status, text };
  }, model);
  await page.waitForFunction(() => (window as { firstChunk?: boolean }).firstChunk === true);
  await page.evaluate(() => delete (window as { firstChunk?: boolean }).firstChunk);
  const result = await act();
  return { ...(await streamed), result };
}

/**
 * Loses the GPU device of the engine's model (the test hook of worker-main.ts: a real
 * `GPUDevice.destroy()` where the model runs on WebGPU, as here on lavapipe; the GPU watch's loss
 * line where it has no device); answers what the hook did.
 */
function loseDevice(page: Page): Promise<string> {
  return page.evaluate(
    () =>
      new Promise<string>((resolve) => {
        const channel = new BroadcastChannel('lmtab-test-hooks');
        channel.onmessage = (event) => resolve(event.data.result);
        channel.postMessage({ type: 'lose-gpu-device' });
      }),
  );
}

/** The last event of an SSE chat stream: the error event of a stream that failed. */
function lastEvent(text: string) {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice('data: '.length)))
    .at(-1);
}

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

test.beforeEach(async ({ page }) => {
  await page.addInitScript(() => localStorage.setItem('lmtab-test-hooks', '1'));
});

test('the engine reports the WebGPU adapter it asked for as high-performance, in its API and the Developer tab @webgpu', async ({
  page,
}) => {
  await openApp(page);
  const engine = await page.evaluate(async () => (await fetch('/api/lmtab/engine')).json());
  test.info().annotations.push({ type: 'engine', description: JSON.stringify(engine) });
  expect(engine.gpu).toMatchObject({
    adapter: expect.any(String),
    features: expect.any(Array),
    powerPreference: 'high-performance',
    limits: {
      maxBufferSize: expect.any(Number),
      maxStorageBufferBindingSize: expect.any(Number),
    },
  });
  expect(engine.gpu.limits.maxBufferSize).toBeGreaterThan(0);
  expect(engine.gpu.features).toContain('shader-f16');
  expect(engine.gpu.adapter).toMatch(/mesa/);
  expect(engine.fallbackReason).toBeUndefined();
  await openTab(page, 'Developer');
  const details = page.getByTestId('gpu-details');
  await expect(details.getByTestId('gpu-adapter')).toContainText('asked for high-performance');
  await expect(details.getByTestId('gpu-limits')).toContainText('maxBufferSize');
  await expect(details.getByTestId('gpu-features')).toHaveText(
    engine.gpu.features.length > 0 ? engine.gpu.features.join(', ') : 'none',
  );
});

test('a GPU device lost mid-answer ends that answer with gpu_device_lost, and the next request is served without a reload @webgpu', async ({
  page,
}) => {
  test.setTimeout(300_000);
  await openApp(page);
  const model = await importModel(page, 'tiny-lfm2.gguf');
  const before = await chat(page, model);
  expect(before.status, JSON.stringify(before.body)).toBe(200);
  // The load's backend lines are kept apart from the engine log ring: every layer on WebGPU.
  const { loaded: loadedBefore } = await expectOnGpu(page, model, { splits: 2 });
  expect(loadedBefore.info.graphSplits).toBeGreaterThan(0);

  let navigations = 0;
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) navigations += 1;
  });
  const lost = await streamAnd(page, model, () => loseDevice(page));
  test.info().annotations.push({ type: 'hook', description: lost.result });
  expect(lost.result).toBe('destroyed');
  expect(lost.status).toBe(200);
  const failure = lastEvent(lost.text);
  expect(failure.error).toMatchObject({ type: 'server_error', code: 'gpu_device_lost' });
  expect(failure.error.message).toMatch(
    /^The GPU device was lost while tiny-lfm2 was generating .*The model was unloaded; the next request loads it again, on WebGPU if an adapter is available again and on the CPU otherwise\.$/,
  );

  const after = await chat(page, model);
  expect(after.status, JSON.stringify(after.body)).toBe(200);
  expect(after.body.choices[0].message.content.length).toBeGreaterThan(0);
  expect(navigations).toBe(0);
  const engine = await page.evaluate(async () => (await fetch('/api/lmtab/engine')).json());
  test.info().annotations.push({ type: 'engine after', description: JSON.stringify(engine) });
  // The first line that said so: the watch's `device lost` or, when llama.cpp's wait on the GPU
  // ends first (a buffer map cut short by the destroy), ggml_webgpu's own failure line.
  expect(engine.gpuLost.line).toMatch(
    /^lmtab-gpu: device lost|ggml_webgpu: (Device lost!|.*failed with status)/,
  );
  // Loaded again on WebGPU, with every layer there.
  expect(engine.loaded[0]).toMatchObject({ model, active: 0 });
  await expectOnGpu(page, model, { splits: 2 });
  await openTab(page, 'Developer');
  await expect(page.getByTestId('gpu-lost')).toContainText(engine.gpuLost.line);
});

test("the GPU watch that runs in wllama's worker asks for high-performance and sees a real device loss @webgpu", async ({
  page,
}) => {
  await openApp(page);
  // The watch ahead of code that does what emscripten's glue does for llama.cpp: an adapter with
  // no power preference, a device kept; then the hook destroys it for real, on lavapipe.
  const lines = await page.evaluate(
    async ({ prologue, hook }) => {
      const glue = `(async () => {
        const adapter = await navigator.gpu.requestAdapter({ powerPreference: undefined });
        self.kept = await adapter.requestDevice();
        postMessage({ verb: 'ready' });
      })();`;
      const url = URL.createObjectURL(new Blob([prologue + glue], { type: 'text/javascript' }));
      const worker = new Worker(url);
      const said: string[] = [];
      await new Promise<void>((resolve, reject) => {
        worker.onerror = (event) => reject(new Error(event.message));
        worker.onmessage = (event) => {
          if (event.data.verb === 'ready') worker.postMessage(hook);
          else said.push(event.data.args[0]);
          if (/device lost/.test(said.at(-1) ?? '')) resolve();
        };
      });
      worker.terminate();
      return said;
    },
    { prologue: gpuWorkerPrologue, hook: loseDeviceMessage },
  );
  expect(lines[0]).toMatch(
    /^lmtab-gpu: adapter \{"powerPreference":"high-performance","vendor":"mesa","architecture":"software"/,
  );
  expect(lines.slice(1)).toEqual([
    'lmtab-gpu: test hook: destroying 1 GPU device(s)',
    expect.stringMatching(/^lmtab-gpu: device lost \(destroyed by the lmtab test hook\): /),
  ]);
});

test("a crash of Chromium's GPU process mid-answer ends it with gpu_device_lost; the request waiting behind it and the next run on WebGPU again without a reload, and where Chromium then withholds WebGPU, on the CPU saying why @webgpu", async ({
  playwright,
}, testInfo) => {
  test.setTimeout(300_000);
  // A browser of its own: after a crash or two, Chromium withholds WebGPU from the pages of that
  // browser for a while, and the specs after this one need it.
  const { launchOptions, baseURL, storageState } = testInfo.project.use;
  const browser = await playwright.chromium.launch(launchOptions);
  try {
    const context = await browser.newContext({ baseURL, storageState });
    const page = await context.newPage();
    await openApp(page);
    const model = await importModel(page, 'tiny-lfm2.gguf');
    // A request for this model waits for the streaming one to end; it must survive the crash.
    const other = await importModel(page, 'tiny-lfm2-f16-words.gguf');
    expect((await chat(page, model)).status).toBe(200);
    await expectOnGpu(page, model, { splits: 2 });
    let navigations = 0;
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations += 1;
    });
    const cdp = await browser.newBrowserCDPSession();
    const crashGpu = () => cdp.send('Browser.crashGpuProcess' as never);

    let queued: ReturnType<typeof chat> | undefined;
    const first = await streamAnd(page, model, async () => {
      queued = chat(page, other);
      await page.waitForTimeout(500);
      await crashGpu();
    });
    expect(first.status).toBe(200);
    expect(lastEvent(first.text).error).toMatchObject({
      type: 'server_error',
      code: 'gpu_device_lost',
    });
    const waited = await queued!;
    expect(waited.status, JSON.stringify(waited.body)).toBe(200);
    await expectOnGpu(page, other, { splits: 2 });
    const after = await chat(page, model);
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    // A new instance of the engine, on WebGPU again: every layer there.
    await expectOnGpu(page, model, { splits: 2 });
    const engine = await page.evaluate(async () => (await fetch('/api/lmtab/engine')).json());
    testInfo.annotations.push({
      type: 'after the first crash',
      description: JSON.stringify(engine),
    });

    const second = await streamAnd(page, model, crashGpu);
    expect(lastEvent(second.text).error).toMatchObject({ code: 'gpu_device_lost' });
    const again = await chat(page, model);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const status = await page.evaluate(async () => (await fetch('/api/lmtab/engine')).json());
    testInfo.annotations.push({
      type: 'after the second crash',
      description: JSON.stringify(status),
    });
    const loaded = status.loaded.find((m: { model: string }) => m.model === model);
    // Chromium 156 withholds WebGPU from the page after a second crash within minutes (seen every
    // time here): the model runs on the CPU and says why, never as a CPU load reported as WebGPU.
    expect(loaded.info).toMatchObject({ backend: 'wasm', gpuLayers: 0 });
    expect(loaded.info.fallbackReason).toMatch(
      /^no WebGPU adapter is available since the GPU device was lost at .*reloading the tab/,
    );
    expect(navigations).toBe(0);
  } finally {
    await browser.close();
  }
});
