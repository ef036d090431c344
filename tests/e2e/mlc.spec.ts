import type { AppConfig } from '@mlc-ai/web-llm';
import { type Locator, type Page } from '@playwright/test';
import { expect, test } from './support/reused-context.js';
import { startFakeHub, type FakeHub } from '../support/fake-hub.js';
import { openApp, openTab } from './support/app.js';
import { startE2eHub, useHub } from './support/hub.js';
import { testPorts } from '../support/test-ports.js';

/** The fake hub of these tests (web-llm's artifacts normally come from Hugging Face and GitHub). */
const hubPort = testPorts.mlcHub;

/**
 * The Discover tab's WebGPU (MLC) catalog (behind the engine filter), on an optional catalog
 * instead of web-llm's.
 */
async function discoverCatalog(page: Page, appConfig?: AppConfig): Promise<Locator> {
  await openTab(page, 'Discover');
  await page
    .getByRole('radiogroup', { name: 'Engine' })
    .getByRole('radio', { name: 'WebGPU (MLC)' })
    .click();
  const catalog = page.getByRole('tabpanel', { name: 'Discover' }).locator('lmtab-mlc-catalog');
  await expect(catalog).toBeAttached();
  if (appConfig) {
    await catalog.evaluate((element, appConfig) => {
      (element as HTMLElement & { appConfig: AppConfig }).appConfig = appConfig;
    }, appConfig);
  }
  return catalog;
}

function adapterFeatures(page: Page): Promise<string[] | null> {
  return page.evaluate(async () => {
    const gpu = (
      navigator as Navigator & {
        gpu?: { requestAdapter(): Promise<{ features: Iterable<string> } | null> };
      }
    ).gpu;
    const adapter = await gpu?.requestAdapter();
    return adapter ? [...adapter.features] : null;
  });
}

const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

// Discover asks the hub for its featured models: a fake one keeps the traffic on loopback.
let featuredHub: FakeHub;
test.beforeAll(async () => {
  featuredHub = await startE2eHub();
});
test.afterAll(async () => {
  await featuredHub.close();
});
test.beforeEach(async ({ page }) => {
  await useHub(page, featuredHub);
});

test('without a WebGPU adapter the MLC filter says why and lists nothing', async ({ page }) => {
  await openApp(page);
  expect(await adapterFeatures(page)).toBeNull();
  const catalog = await discoverCatalog(page);
  await expect(page.getByRole('tabpanel', { name: 'Discover' })).toBeVisible();
  await expect(catalog.getByTestId('no-webgpu')).toContainText(
    'MLC models run on WebGPU only, and this browser offers no WebGPU adapter',
  );
  await expect(catalog.locator('li')).toHaveCount(0);
});

test("web-llm's prebuilt catalog shows as WebGPU (MLC) models when an adapter exists @webgpu", async ({
  page,
}) => {
  await openApp(page);
  const features = await adapterFeatures(page);
  expect(features).not.toBeNull();
  const catalog = await discoverCatalog(page);
  await expect(catalog.getByRole('region', { name: 'WebGPU (MLC) models' })).toBeVisible();
  const f32 = catalog.locator('li[data-model="SmolLM2-360M-Instruct-q4f32_1-MLC"]');
  await expect(f32).toContainText('WebGPU (MLC)');
  await expect(
    f32.getByRole('button', { name: 'Download SmolLM2-360M-Instruct-q4f32_1-MLC' }),
  ).toBeVisible();
  const f16 = catalog.locator('li[data-model="SmolLM2-360M-Instruct-q4f16_1-MLC"]');
  if (features!.includes('shader-f16')) {
    await expect(f16.getByRole('button')).toBeVisible();
  } else {
    // SwiftShader has no shader-f16: f16 models are folded under their count, each saying why.
    const folded = catalog.locator('details');
    await expect(folded.locator('summary')).toHaveText(
      /^\s*\d+ more models? cannot run on this GPU\s*$/,
    );
    await expect(f16).toBeHidden();
    await folded.locator('summary').click();
    await expect(f16).toContainText(
      'Not on this GPU: needs the WebGPU feature shader-f16, which this GPU lacks',
    );
    await expect(catalog.getByRole('list', { name: 'MLC models for this GPU' })).not.toContainText(
      'q4f16',
    );
  }
  await expect(catalog.locator('li[data-model^="snowflake-arctic-embed"]')).toHaveCount(0);
});

test.describe('an MLC model from the fake hub @webgpu', () => {
  let hub: FakeHub | undefined;
  test.afterEach(async () => {
    await hub?.close();
    hub = undefined;
  });

  test('downloads into the store with progress, and web-llm loads it from there', async ({
    page,
  }) => {
    const shard = new Uint8Array(1 << 20).fill(7);
    hub = await startFakeHub({
      port: hubPort,
      repos: [
        {
          id: 'mlc-ai/Tiny-q4f32_1-MLC',
          tags: ['mlc'],
          files: [
            {
              path: 'mlc-chat-config.json',
              bytes: json({
                model_type: 'qwen2',
                quantization: 'q4f32_1',
                context_window_size: 512,
                model_config: { hidden_size: 64, num_hidden_layers: 2 },
                tokenizer_files: ['tokenizer.json'],
              }),
            },
            {
              path: 'tensor-cache.json',
              bytes: json({
                metadata: { ParamSize: 262144 },
                records: [
                  {
                    dataPath: 'params_shard_0.bin',
                    format: 'raw-shard',
                    nbytes: shard.length,
                    records: [],
                  },
                ],
              }),
            },
            { path: 'tokenizer.json', bytes: json({ model: { type: 'BPE' } }) },
            { path: 'params_shard_0.bin', bytes: shard },
          ],
        },
        {
          id: 'mlc-ai/binary-mlc-llm-libs',
          files: [
            {
              path: 'web-llm-models/v0_2_86/base/Tiny-q4f32_1-webgpu.wasm',
              // Not a compiled model: real libraries come from GitHub, unreachable here.
              bytes: new TextEncoder().encode('lmtab fake model library'),
            },
          ],
        },
      ],
    });
    hub.slow('mlc-ai/Tiny-q4f32_1-MLC/params_shard_0.bin', 256 * 1024);
    const appConfig: AppConfig = {
      model_list: [
        {
          model: `${hub.url}/mlc-ai/Tiny-q4f32_1-MLC`,
          model_id: 'Tiny-q4f32_1-MLC',
          model_lib: `${hub.url}/mlc-ai/binary-mlc-llm-libs/resolve/main/web-llm-models/v0_2_86/base/Tiny-q4f32_1-webgpu.wasm`,
          vram_required_MB: 64,
          low_resource_required: true,
          overrides: { context_window_size: 512 },
        },
      ],
    };
    await openApp(page);
    const catalog = await discoverCatalog(page, appConfig);
    const entry = catalog.locator('li[data-model="Tiny-q4f32_1-MLC"]');
    const download = entry.getByRole('button', { name: 'Download Tiny-q4f32_1-MLC' });
    await download.click();
    await expect(entry.getByRole('status')).toContainText('Downloading params_shard_0.bin');
    // Cancel part-way, then download again: the finished files are kept.
    await entry.getByRole('button', { name: 'Cancel download of Tiny-q4f32_1-MLC' }).click();
    await expect(download).toBeVisible();
    await expect(entry.getByRole('alert')).toHaveCount(0);
    await download.click();
    await expect(entry).toContainText('Downloaded', { timeout: 60_000 });
    const fetched = (path: string) =>
      hub!.requestsFor(`mlc-ai/Tiny-q4f32_1-MLC/${path}`).filter((r) => r.method === 'GET').length;
    expect(fetched('tokenizer.json')).toBe(1);
    expect(fetched('params_shard_0.bin')).toBe(2);

    const listed = await page.evaluate(async () => (await fetch('/v1/models')).json());
    expect(listed.data.map((m: { id: string }) => m.id)).toContain('Tiny-q4f32_1-MLC');
    const stored = await page.evaluate(async () => {
      const response = await fetch('/lmtab-store/Tiny-q4f32_1-MLC/resolve/main/params_shard_0.bin');
      return { status: response.status, size: (await response.arrayBuffer()).byteLength };
    });
    expect(stored).toEqual({ status: 200, size: shard.length });

    // From here on the hub is gone: web-llm can only read the store.
    await hub.close();
    const answer = await page.evaluate(async () => {
      const response = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          model: 'Tiny-q4f32_1-MLC',
          messages: [{ role: 'user', content: 'Hello' }],
          max_tokens: 4,
        }),
      });
      return { status: response.status, body: await response.json() };
    });
    test.info().annotations.push({ type: 'web-llm', description: JSON.stringify(answer) });
    // web-llm read the config and then the library from the store: its WebAssembly compiler
    // refused the fake library's first bytes ("lmta"). As far as this machine can go without
    // real artifacts.
    expect(answer.status).toBe(500);
    expect(answer.body.error.message).toMatch(
      /^Loading Tiny-q4f32_1-MLC with web-llm on WebGPU \(.+\) failed: WebAssembly\.instantiate\(\): expected magic word 00 61 73 6d, found 6c 6d 74 61/,
    );
    // web-llm's own cached copy of what it read was dropped: the store is the one copy.
    const copies = await page.evaluate(async () =>
      Promise.all(
        ['webllm/config', 'webllm/model', 'webllm/wasm'].map(async (name) =>
          (await caches.has(name)) ? (await (await caches.open(name)).keys()).length : 0,
        ),
      ),
    );
    expect(copies).toEqual([0, 0, 0]);
  });
});
