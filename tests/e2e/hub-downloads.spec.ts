import { expect, test } from './support/reused-context.js';
import { formatBytes } from '../../src/store/index.js';
import type { FakeHub } from '../support/fake-hub.js';
import { openApp, openTab } from './support/app.js';
import {
  downloadItem,
  escapeRegExp,
  openHubSettings,
  openRepo,
  repos,
  startE2eHub,
  storedCounts,
  textFile,
  textId,
  usage,
  useHub,
} from './support/hub.js';

const fileSize = 396_320;
/** `fileSize` as the app writes it. */
const shownSize = formatBytes(fileSize);
const chunk = 64 * 1024;
let hub: FakeHub;

test.beforeAll(async () => {
  hub = await startE2eHub();
});

test.afterAll(async () => {
  await hub.close();
});

test.beforeEach(() => hub.reset());

test('search LFM2, choose a quantization, watch the download, and chat with the model', async ({
  page,
}) => {
  test.setTimeout(240_000);
  await openApp(page);
  await openTab(page, 'Discover');
  await openHubSettings(page);
  await page.getByLabel('Hub endpoint').fill(hub.url);
  await page.getByLabel('Hub endpoint').press('Tab');
  await page.getByLabel('Search models').fill('LFM2');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const results = page.getByRole('list', { name: 'Search results' });
  // The eleven featured LFM2 and LFM2.5 repositories, the split one and the gated one; not the Llama.
  await expect(results.getByRole('listitem')).toHaveCount(13);
  await expect(results.getByRole('listitem').first().getByRole('button')).toHaveAccessibleName(
    `${repos.text}, 5.2K downloads, 120 likes`,
  );
  await expect(results).not.toContainText('Llama-Other');

  await results.getByRole('button', { name: new RegExp(`^${escapeRegExp(repos.text)}, `) }).click();
  const picker = page.getByRole('group', { name: `Quantization of ${repos.text}` });
  const q4 = picker.getByRole('radio', { name: /Q4_K_M/ });
  await expect(q4).toBeChecked();
  const q4Label = picker.locator('label').filter({ hasText: 'Q4_K_M' });
  await expect(q4Label).toContainText(`Q4_K_M · ${shownSize}`);
  await expect(q4Label).toContainText('Recommended');
  await expect(q4Label).toContainText('fast and small with good quality');
  await expect(picker.getByRole('radio', { name: /Q8_0/ })).not.toBeChecked();
  await expect(picker).toContainText(
    'Q4 levels are faster and smaller; Q6 and Q8 give better quality.',
  );
  await expect(page.locator('lmtab-quantization-picker').getByTestId('fit')).toContainText(
    "Fits in this browser's storage",
  );

  hub.slow(textFile, 120_000);
  await page.getByRole('button', { name: 'Download', exact: true }).click();
  const item = downloadItem(page, textId);
  await expect(item.getByTestId('download-numbers')).toContainText(/KB\/s · \d+ s left/);
  await expect(item.getByRole('progressbar', { name: `Download of ${textId}` })).toBeVisible();
  await expect(item).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(item.getByTestId('download-numbers')).toHaveText(`${shownSize} of ${shownSize}`);
  await expect(q4Label).toContainText('Downloaded');

  const show = await page.evaluate(async (model) => {
    const response = await fetch('/api/show', { method: 'POST', body: JSON.stringify({ model }) });
    return response.json();
  }, textId);
  expect(show.details).toMatchObject({ family: 'lfm2', format: 'gguf' });
  expect(show.model_info).toMatchObject({
    'general.architecture': 'lfm2',
    'lfm2.context_length': 4096,
  });

  await openTab(page, 'Chat');
  await page.getByLabel('Model', { exact: true }).selectOption(textId);
  await page.getByRole('spinbutton', { name: 'Max tokens', exact: true }).fill('32');
  await page.getByLabel('Message').fill('Hello, model');
  await page.getByRole('button', { name: 'Send' }).click();
  const answer = page.locator('[data-role="assistant"]').first();
  await expect(answer.locator('.stats')).toContainText('tok/s', { timeout: 120_000 });
  // The answer's text lives in shadow roots, which innerText skips; Playwright's text pierces them.
  await expect(answer).toContainText(/\S[\s\S]{10,}/);
});

test('a download cut in the middle resumes from the last stored chunk and verifies', async ({
  page,
}) => {
  await useHub(page, hub);
  await openApp(page);
  await openRepo(page, 'LFM2', repos.text);
  // Paced, so the page reads the bytes as they come: Chromium drops what it has not handed over
  // when a connection dies, which would make the resume point depend on the machine's load.
  hub.slow(textFile, 200_000);
  hub.cutAfter(textFile, 200_000);
  await page.getByRole('button', { name: 'Download', exact: true }).click();
  await expect(downloadItem(page, textId)).toHaveAttribute('data-status', 'done');
  const ranges = hub.ranges(textFile);
  expect(ranges).toHaveLength(2);
  expect(ranges[0]).toBe('bytes=0-');
  const resumeAt = Number(/bytes=(\d+)-/.exec(ranges[1] ?? '')?.[1]);
  // The last whole chunk before the cut (a chunk more when the cut chunk's tail was lost).
  expect(resumeAt % chunk).toBe(0);
  expect(resumeAt).toBeGreaterThanOrEqual(Math.floor(200_000 / chunk) * chunk - chunk);
  expect(resumeAt).toBeLessThanOrEqual(200_000);
  const fetched = 200_000 + (fileSize - resumeAt);
  test.info().annotations.push({
    type: 'measured',
    description: `cut after 200000 of ${fileSize} bytes: resumed at ${resumeAt}, fetched ${fetched} bytes in all (${fetched - fileSize} twice)`,
  });
  expect(await storedCounts(page)).toEqual({ records: 1, chunks: Math.ceil(fileSize / chunk) });
});

test('with the network cut and restored, the download completes without starting over', async ({
  page,
  context,
}) => {
  await useHub(page, hub);
  await openApp(page);
  await openRepo(page, 'LFM2', repos.text);
  // The connection drops at 150 kB while the browser is offline; the retry waits for the network.
  hub.slow(textFile, 100_000);
  hub.cutAfter(textFile, 150_000);
  await page.getByRole('button', { name: 'Download', exact: true }).click();
  const item = downloadItem(page, textId);
  await expect(item.getByTestId('download-numbers')).toContainText(/^\d+\.\d KB of/);
  await context.setOffline(true);
  await expect(item).toHaveAttribute('data-status', 'retrying');
  await expect(item).toContainText('the browser is offline; waiting for the network');
  await page.waitForTimeout(1000);
  expect(hub.ranges(textFile)).toEqual(['bytes=0-']);
  hub.slow(textFile, undefined);
  await context.setOffline(false);
  await expect(item).toHaveAttribute('data-status', 'done');
  const resumeAt = Math.floor(150_000 / chunk) * chunk;
  expect(hub.ranges(textFile)).toEqual(['bytes=0-', `bytes=${resumeAt}-`]);
});

test('a reload mid-download shows the download and resumes it from the stored chunks', async ({
  page,
}) => {
  await useHub(page, hub);
  await openApp(page);
  await openRepo(page, 'LFM2', repos.text);
  hub.slow(textFile, 80_000);
  await page.getByRole('button', { name: 'Download', exact: true }).click();
  const item = downloadItem(page, textId);
  await expect(item.getByTestId('download-numbers')).toContainText(/^(1[5-9]\d|[23]\d\d)\.\d KB/);
  await page.reload();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  await expect(item).toBeVisible();
  hub.slow(textFile, undefined);
  await expect(item).toHaveAttribute('data-status', 'done');
  const ranges = hub.ranges(textFile);
  expect(ranges).toHaveLength(2);
  const resumed = Number(/bytes=(\d+)-/.exec(ranges[1] ?? '')?.[1]);
  expect(resumed).toBeGreaterThanOrEqual(2 * chunk);
  expect(resumed % chunk).toBe(0);
  test.info().annotations.push({
    type: 'measured',
    description: `reload: resumed at byte ${resumed} of ${fileSize}`,
  });
  const models = await page.evaluate(async () => (await fetch('/api/tags')).json());
  expect(models.models.map((m: { name: string }) => m.name)).toEqual([textId]);
});

test('pause keeps the stored chunks, resume continues, cancel deletes everything', async ({
  page,
}) => {
  await useHub(page, hub);
  await openApp(page);
  await openRepo(page, 'LFM2', repos.text);
  hub.slow(textFile, 100_000);
  await page.getByRole('button', { name: 'Download', exact: true }).click();
  const item = downloadItem(page, textId);
  await expect(item.getByTestId('download-numbers')).toContainText(/^(1[5-9]\d|[23]\d\d)\.\d KB/);
  await item.getByRole('button', { name: 'Pause' }).click();
  await expect(item).toHaveAttribute('data-status', 'paused');
  hub.slow(textFile, undefined);
  await item.getByRole('button', { name: 'Resume' }).click();
  await expect(item).toHaveAttribute('data-status', 'done');
  const resumed = Number(/bytes=(\d+)-/.exec(hub.ranges(textFile)[1] ?? '')?.[1]);
  expect(resumed).toBeGreaterThanOrEqual(2 * chunk);

  await page.getByRole('radio', { name: /Q8_0/ }).check();
  hub.slow(`${repos.text}/LFM2-350M-Q8_0.gguf`, 100_000);
  await page.getByRole('button', { name: 'Download', exact: true }).click();
  const q8 = downloadItem(page, `hf.co/${repos.text}:Q8_0`);
  await expect(q8.getByTestId('download-numbers')).toContainText(/^(1[5-9]\d|[2-4]\d\d)\.\d KB/);
  await q8.getByRole('button', { name: 'Cancel' }).click();
  await expect(q8).toHaveCount(0);
  expect(await storedCounts(page)).toEqual({ records: 1, chunks: Math.ceil(fileSize / chunk) });
});

test('a wrong checksum is rejected and nothing is left behind', async ({ page }) => {
  await useHub(page, hub);
  await openApp(page);
  hub.wrongSha(textFile);
  await openRepo(page, 'LFM2', repos.text);
  await page.getByRole('button', { name: 'Download', exact: true }).click();
  const alert = downloadItem(page, textId).getByRole('alert');
  await expect(alert).toContainText('LFM2-350M-Q4_K_M.gguf failed verification: expected sha256');
  await expect(alert).toContainText(`got ${hub.sha256(textFile)}`);
  await expect(alert).toContainText('nothing of it is kept');
  expect(await storedCounts(page)).toEqual({ records: 0, chunks: 0 });
});

test('404 and 401 each give a clear message, and a token fixes the 401', async ({ page }) => {
  await useHub(page, hub);
  await openApp(page);

  await openRepo(page, 'LFM2', repos.text);
  hub.fail(textFile, 404);
  await page.getByRole('button', { name: 'Download', exact: true }).click();
  await expect(downloadItem(page, textId).getByRole('alert')).toContainText(
    `LFM2-350M-Q4_K_M.gguf was not found on ${hub.url}`,
  );
  await downloadItem(page, textId).getByRole('button', { name: 'Cancel' }).click();
  hub.reset();

  const gatedId = `hf.co/${repos.gated}:Q4_K_M`;
  await openRepo(page, 'LFM2', repos.gated);
  await expect(page.getByText(`${repos.gated} is gated: set a hub token`)).toBeVisible();
  await page.getByRole('button', { name: 'Download', exact: true }).click();
  await expect(downloadItem(page, gatedId).getByRole('alert')).toContainText(
    'The hub refused LFM2-Gated-Q4_K_M.gguf: expected access to it, got HTTP 401 GatedRepo',
  );
  await expect(downloadItem(page, gatedId).getByRole('alert')).toContainText('set a hub token');
  await openHubSettings(page);
  await page.getByLabel('Hub token').fill(hub.token);
  await page.getByLabel('Hub token').press('Tab');
  await downloadItem(page, gatedId).getByRole('button', { name: 'Resume' }).click();
  await expect(downloadItem(page, gatedId)).toHaveAttribute('data-status', 'done');
  expect(hub.requestsFor(`${repos.gated}/LFM2-Gated-Q4_K_M.gguf`).at(-1)?.authorization).toBe(
    `Bearer ${hub.token}`,
  );
});

test('a full quota gives a clear message, and the download resumes once there is room', async ({
  browser,
  page,
}) => {
  // IndexedDB reads the origin's quota when it first opens, so the override must come before the
  // app starts. The quota leaves the app its own usage (the service worker's precache and the
  // store's two databases, 72 KiB each on Chromium 156's SQLite backend, measured in a throwaway
  // context) and 100 kB more: less than the model.
  const probe = await browser.newContext();
  const probePage = await probe.newPage();
  await openApp(probePage);
  await storedCounts(probePage);
  const appUsage = await usage(probePage);
  await probe.close();
  const cdp = await page.context().newCDPSession(page);
  const origin = new URL(test.info().project.use.baseURL!).origin;
  await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: appUsage + 100_000 });
  await useHub(page, hub);
  await openApp(page);
  // Chromium's estimate() reports usage + 10 GiB whatever the quota (against fingerprinting), so
  // the pre-check passes and the browser's own refusal to store a chunk must give the message.
  await openRepo(page, 'LFM2', repos.text);
  await page.getByRole('button', { name: 'Download', exact: true }).click();
  const item = downloadItem(page, textId);
  await expect(item.getByRole('alert')).toContainText(
    'Not enough storage: the browser refused to store LFM2-350M-Q4_K_M.gguf beyond',
  );
  await expect(item.getByRole('alert')).toContainText('Delete a model to make room');
  await cdp.send('Storage.overrideQuotaForOrigin', { origin });
  await item.getByRole('button', { name: 'Resume' }).click();
  await expect(item).toHaveAttribute('data-status', 'done');
  const resumed = Number(/bytes=(\d+)-/.exec(hub.ranges(textFile).at(-1) ?? '')?.[1]);
  expect(resumed).toBeGreaterThan(0);
});

test('deleting a downloaded model frees its space', async ({ page }) => {
  await useHub(page, hub);
  await openApp(page);
  await openRepo(page, 'LFM2', repos.text);
  await page.getByRole('button', { name: 'Download', exact: true }).click();
  await expect(downloadItem(page, textId)).toHaveAttribute('data-status', 'done');
  const before = await usage(page);
  const status = await page.evaluate(async (model) => {
    const response = await fetch('/api/delete', {
      method: 'DELETE',
      body: JSON.stringify({ model }),
    });
    return response.status;
  }, textId);
  expect(status).toBe(200);
  expect(await storedCounts(page)).toEqual({ records: 0, chunks: 0 });
  await expect.poll(() => usage(page)).toBeLessThanOrEqual(before - fileSize);
  test.info().annotations.push({
    type: 'measured',
    description: `storage usage ${before} bytes with the model, ${await usage(page)} after deleting it`,
  });
});

test('/api/pull streams Ollama progress, fetches the projector along, and the model answers', async ({
  page,
}) => {
  await useHub(page, hub);
  await openApp(page);
  const pull = (model: string, stream = true) =>
    page.evaluate(
      async ([model, stream]) => {
        const response = await fetch('/api/pull', {
          method: 'POST',
          body: JSON.stringify({ model, stream }),
        });
        const text = await response.text();
        return {
          status: response.status,
          type: response.headers.get('Content-Type'),
          lines: text
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line) as Record<string, unknown>),
        };
      },
      [model, stream] as const,
    );

  const vision = await pull(`hf.co/${repos.vision}`);
  expect(vision.status).toBe(200);
  expect(vision.type).toBe('application/x-ndjson');
  expect(vision.lines[0]).toEqual({ status: 'pulling manifest' });
  expect(vision.lines.slice(-3)).toEqual([
    { status: 'verifying sha256 digest' },
    { status: 'writing manifest' },
    { status: 'success' },
  ]);
  const projectorSha = hub.sha256(`${repos.vision}/mmproj-LFM2-VL-450M-F16.gguf`);
  expect(vision.lines).toContainEqual(
    expect.objectContaining({ digest: `sha256:${projectorSha}`, completed: expect.any(Number) }),
  );
  const visionId = `hf.co/${repos.vision}:Q4_K_M`;
  const show = await page.evaluate(async (model) => {
    const response = await fetch('/api/show', { method: 'POST', body: JSON.stringify({ model }) });
    return response.json();
  }, visionId);
  expect(show.capabilities).toEqual(['completion', 'vision', 'tools']);

  const split = await pull(`hf.co/${repos.split}:Q8_0`, false);
  expect(split).toMatchObject({ status: 200, lines: [{ status: 'success' }] });
  // Untagged, as Ollama clients name a pulled hub model: the stored level answers.
  const answer = await page.evaluate(async (model) => {
    const response = await fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        model,
        messages: [{ role: 'user', content: 'Hi' }],
        max_tokens: 4,
        temperature: 0,
      }),
    });
    return { status: response.status, body: await response.json() };
  }, `hf.co/${repos.split}`);
  expect(answer.status).toBe(200);
  expect(answer.body.model).toBe(`hf.co/${repos.split}:Q8_0`);
  expect(answer.body.choices[0].message.content.length).toBeGreaterThan(0);

  const missing = await pull('hf.co/LiquidAI/Nope-GGUF');
  expect(missing.status).toBe(404);
  expect(missing.lines[0]?.error).toMatch(/Repository LiquidAI\/Nope-GGUF was not found/);
});
