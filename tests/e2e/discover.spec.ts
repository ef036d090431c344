import { type Page } from '@playwright/test';
import { expect, test } from './support/reused-context.js';
import { readFile, stat } from 'node:fs/promises';
import { featuredModels } from '../../src/hub/index.js';
import { formatBytes } from '../../src/store/index.js';
import { ensureFixtures } from '../support/lfm2-fixtures.js';
import { fixtureDir } from './support/paths.js';
import type { FakeHub } from '../support/fake-hub.js';
import { overflowingElements } from './support/accessibility.js';
import { fixture, openApp, openTab } from './support/app.js';
import {
  downloadItem,
  featuredCard,
  openRepo,
  repos,
  startE2eHub,
  textId,
  useHub,
} from './support/hub.js';

let hub: FakeHub;
/** The size the hub lists for the text pick's Q4_K_M file (the tiny LFM2 fixture). */
let tinySize: string;

test.beforeAll(async () => {
  hub = await startE2eHub();
  tinySize = formatBytes((await stat((await ensureFixtures(fixtureDir)).lfm2)).size);
});

test.afterAll(async () => {
  await hub.close();
});

test.beforeEach(() => hub.reset());

test('the featured reranker downloads from its card, which says how to call it, and /v1/rerank ranks with it', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const reranker = featuredModels.find((m) => m.capabilities.includes('rerank'))!;
  await useHub(page, hub);
  await openApp(page);
  await openTab(page, 'Discover');
  const card = featuredCard(page, reranker.repo);
  await expect(card.locator('.badges .badge')).toHaveText(['Rerank']);
  await card.getByRole('button', { name: `Download ${reranker.name}` }).click();
  const use = card.getByTestId('rerank-use');
  await expect(use).toBeVisible({ timeout: 60_000 });
  // No chat for a reranker: the card names the route and the stored id instead.
  await expect(card.getByRole('button', { name: `Chat with ${reranker.name}` })).toHaveCount(0);
  const id = `hf.co/${reranker.repo}:Q4_K_M`;
  await expect(use).toHaveText(`Ranks documents through POST /v1/rerank as ${id}.`);
  const answer = await page.evaluate(async (model) => {
    const response = await fetch('/v1/rerank', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model, query: 'the sea', documents: ['a cat', 'the sea is blue'] }),
    });
    return { status: response.status, body: await response.json() };
  }, id);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.body.results.map((r: { index: number }) => r.index).sort()).toEqual([0, 1]);
});

test('the featured audio model downloads with its audio projector and transcribes', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const audio = featuredModels.find((m) => m.capabilities.includes('audio'))!;
  await useHub(page, hub);
  await openApp(page);
  await openTab(page, 'Discover');
  const card = featuredCard(page, audio.repo);
  await expect(card.locator('.badges .badge')).toHaveText(['Text', 'Audio']);
  await card.getByRole('button', { name: `Download ${audio.name}` }).click();
  await expect(card.getByRole('button', { name: `Chat with ${audio.name}` })).toBeVisible({
    timeout: 60_000,
  });
  const stem = audio.repo.split('/')[1]!.replace(/-GGUF$/, '');
  expect(hub.requestsFor(`${audio.repo}/mmproj-${stem}-F16.gguf`).length).toBeGreaterThan(0);
  const wav = [...(await readFile(fixture('tone-1s.wav')))];
  const answer = await page.evaluate(
    async ([model, bytes]) => {
      const form = new FormData();
      form.append('file', new Blob([Uint8Array.from(bytes)]), 'tone.wav');
      form.append('model', model);
      const response = await fetch('/v1/audio/transcriptions', { method: 'POST', body: form });
      return { status: response.status, body: await response.json() };
    },
    [`hf.co/${audio.repo}:Q4_K_M`, wav] as const,
  );
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  expect(answer.body.usage.input_tokens).toBeGreaterThan(10);
});

test('a featured LFM2 card downloads in one click and chats right there in Discover', async ({
  page,
}) => {
  test.setTimeout(240_000);
  await useHub(page, hub);
  await openApp(page);
  await openTab(page, 'Discover');
  const cards = page.locator('lmtab-featured-models article');
  await expect(cards).toHaveCount(featuredModels.length);
  await expect(cards.first()).toHaveAttribute('data-repo', repos.text);

  const card = featuredCard(page, repos.text);
  await expect(card.getByRole('heading', { name: 'LFM2 350M' })).toBeVisible();
  await expect(card.locator('.badges .badge')).toHaveText(['Text', 'Tools']);
  await expect(card.getByTestId('parameters')).toHaveText('354M');
  // The size comes from the hub's listing (the tiny fixture), not the data file's estimate.
  await expect(card.getByTestId('size')).toHaveText(tinySize);
  await expect(card.getByTestId('fit')).toContainText('Fits this device.');
  // Both compute paths, with what each needs.
  await expect(card.getByTestId('fit-cpu')).toContainText(/^CPU: fits: needs [\d.]+ MB \(/);
  await expect(card.getByTestId('fit-gpu')).toContainText(/^GPU: /);
  const moe = featuredCard(page, 'LiquidAI/LFM2-8B-A1B-GGUF');
  await expect(moe.locator('.badges')).toContainText('MoE');
  await expect(moe.getByTestId('parameters')).toHaveText('8.3B (1.5B active)');
  const thinking = featuredCard(page, 'LiquidAI/LFM2.5-1.2B-Thinking-GGUF');
  await expect(thinking.locator('.badges')).toContainText('Thinking');
  const vision = featuredCard(page, 'LiquidAI/LFM2-VL-1.6B-GGUF');
  await expect(vision.locator('.badges')).toContainText('Vision');
  await expect(vision).toContainText('with projector');

  hub.slow(`${repos.text}/LFM2-350M-Q4_K_M.gguf`, 150_000);
  await card.getByRole('button', { name: 'Download LFM2 350M' }).click();
  await expect(card.getByRole('progressbar', { name: 'Download of LFM2 350M' })).toBeVisible();
  // The header shows the download from every tab.
  const indicator = page.getByTestId('downloads-indicator');
  await expect(indicator).toHaveAccessibleName(/^1 download in progress, \d+%: show in Discover$/);
  await openTab(page, 'Chat');
  await expect(indicator).toBeVisible();
  await indicator.click();
  await expect(page.getByRole('tab', { name: 'Discover' })).toHaveAttribute(
    'aria-selected',
    'true',
  );

  const chat = card.getByRole('button', { name: 'Chat with LFM2 350M' });
  await expect(chat).toBeVisible({ timeout: 30_000 });
  await expect(indicator).toBeHidden();
  await expect(card.locator('.badges')).toContainText('Downloaded');
  await chat.click();
  const box = page.getByRole('textbox', { name: 'Message to LFM2 350M' });
  await expect(box).toBeFocused();
  await box.fill('Hello, LFM2');
  await box.press('Enter');
  const answer = page.locator('lmtab-quick-chat [data-role="assistant"]');
  await expect(answer.getByTestId('quick-stats')).toContainText(/\d+ tokens · [\d.]+ tok\/s/, {
    timeout: 150_000,
  });
  await expect(answer).toContainText(/\S{3,}/);
  const tags = await page.evaluate(async () => (await fetch('/api/tags')).json());
  expect(tags.models.map((m: { name: string }) => m.name)).toEqual([textId]);

  // A vision pick fetches its projector along.
  const visionFeatured = featuredCard(page, repos.vision);
  await visionFeatured.getByRole('button', { name: 'Download LFM2-VL 450M' }).click();
  await expect(
    visionFeatured.getByRole('button', { name: 'Chat with LFM2-VL 450M' }),
  ).toBeVisible();
  const projector = hub
    .requestsFor(`${repos.vision}/mmproj-LFM2-VL-450M-F16.gguf`)
    .filter((r) => r.kind === 'cdn' && r.method === 'GET');
  expect(projector.length).toBeGreaterThan(0);
});

test('search results open a repository with its model card, and a chosen level downloads', async ({
  page,
}) => {
  await useHub(page, hub);
  await openApp(page);
  await openTab(page, 'Discover');
  await page.getByLabel('Search models').fill('LFM2-350M');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const result = page.locator(`lmtab-search-results li[data-repo="${repos.text}"]`);
  await expect(result).toContainText('5.2K');
  await expect(result).toContainText('120');
  await expect(result).toContainText('3 days ago');
  await result.getByRole('button').press('Enter');

  const details = page.locator('lmtab-repo-details');
  await expect(details.getByRole('heading', { name: repos.text })).toBeFocused();
  const readme = details.locator('lmtab-markdown');
  await expect(readme.getByRole('heading', { name: 'LFM2-350M' })).toBeVisible();
  await expect(readme.locator('strong')).toHaveText('hybrid');
  await expect(readme).toContainText('Liquid AI');
  await expect(readme).not.toContainText('license: other');
  await expect(readme).not.toContainText('cardScriptRan');
  expect(await page.evaluate(() => 'cardScriptRan' in window)).toBe(false);

  const picker = details.getByRole('group', { name: `Quantization of ${repos.text}` });
  await expect(picker.getByRole('radio', { name: /Q4_K_M/ })).toBeChecked();
  await picker.getByRole('radio', { name: /Q8_0/ }).check();
  await expect(details.getByTestId('fit-cpu')).toContainText('CPU: fits: needs');
  await details.getByRole('button', { name: 'Download', exact: true }).click();
  const q8 = `hf.co/${repos.text}:Q8_0`;
  await expect(downloadItem(page, q8)).toHaveAttribute('data-status', 'done');
  await expect(picker.locator('label').filter({ hasText: 'Q8_0' })).toContainText('Downloaded');
  await details.getByRole('button', { name: 'Back to results' }).click();
  await expect(result.getByRole('button')).toBeFocused();
});

test('the engine filter switches between GGUF search and the MLC catalog by keyboard', async ({
  page,
}) => {
  await useHub(page, hub);
  await openApp(page);
  await openTab(page, 'Discover');
  const engine = page.getByRole('radiogroup', { name: 'Engine' });
  const gguf = engine.getByRole('radio', { name: 'GGUF (wllama)' });
  await expect(gguf).toBeChecked();
  await expect(page.getByLabel('Search models')).toBeVisible();
  await gguf.focus();
  await page.keyboard.press('ArrowRight');
  const mlc = engine.getByRole('radio', { name: 'WebGPU (MLC)' });
  await expect(mlc).toBeChecked();
  await expect(mlc).toBeFocused();
  await expect(page.getByLabel('Search models')).toBeHidden();
  // This project's Chromium has no WebGPU adapter: the catalog says why instead of listing.
  await expect(page.getByTestId('no-webgpu')).toContainText('MLC models run on WebGPU only');
  await page.keyboard.press('ArrowLeft');
  await expect(gguf).toBeChecked();
  await expect(page.getByLabel('Search models')).toBeVisible();
});

test('hub problems show inline with what to do, and Retry recovers', async ({ page, context }) => {
  await useHub(page, hub);
  await openApp(page);
  await context.setOffline(true);
  await openTab(page, 'Discover');
  const featured = page.locator('lmtab-featured-models lmtab-hub-problem');
  await expect(featured.getByRole('alert')).toContainText('You are offline');
  await expect(featuredCard(page, repos.text).getByTestId('size')).toHaveText('about 229.0 MB');
  await page.getByLabel('Search models').fill('LFM2');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const search = page.locator('#search-problem');
  await expect(search.getByRole('alert')).toContainText('You are offline');

  await context.setOffline(false);
  await featured.getByRole('button', { name: 'Retry' }).click();
  await expect(featured.getByRole('alert')).toHaveCount(0);
  await expect(featuredCard(page, repos.text).getByTestId('size')).toHaveText(tinySize);
  await search.getByRole('button', { name: 'Retry' }).click();
  await expect(page.locator('lmtab-search-results li').first()).toBeVisible();

  hub.failApi(429, { times: 1 });
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(search.getByRole('alert')).toContainText('The hub is rate-limiting requests');
  await expect(search.getByRole('alert')).toContainText('Wait 30 s, then retry');
  await search.getByRole('button', { name: 'Retry' }).click();
  await expect(search.getByRole('alert')).toHaveCount(0);
  await expect(page.locator('lmtab-search-results li').first()).toBeVisible();

  hub.failApi(401, { times: 1 });
  await page
    .locator(`lmtab-search-results li[data-repo="${repos.gated}"]`)
    .getByRole('button')
    .click();
  await expect(search.getByRole('alert')).toContainText('This model needs a hub token');
  await search.getByRole('button', { name: 'Hub settings' }).click();
  await expect(page.getByLabel('Hub token')).toBeFocused();
});

async function assertNoOverflow(page: Page, what: string) {
  const sizes = await page.evaluate(() => {
    const view = document
      .querySelector('lmtab-app')
      ?.shadowRoot?.querySelector('lmtab-discover-view');
    return {
      document: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
      view: [view?.scrollWidth ?? 0, view?.clientWidth ?? 0],
    };
  });
  expect(sizes.document[0], `document overflow ${what}`).toBeLessThanOrEqual(sizes.document[1]!);
  expect(sizes.view[0], `Discover overflow ${what}`).toBeLessThanOrEqual(sizes.view[1]!);
  expect(await overflowingElements(page), `overflowing elements ${what}`).toEqual([]);
}

for (const width of [390, 1280]) {
  test(`Discover has no horizontal overflow at ${width} px`, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 });
    await useHub(page, hub);
    await openApp(page);
    await openTab(page, 'Discover');
    await expect(featuredCard(page, repos.text).getByTestId('size')).toHaveText(tinySize);
    await assertNoOverflow(page, 'with the featured cards');
    await page.getByLabel('Search models').fill('LFM2');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect(page.locator('lmtab-search-results li').first()).toBeVisible();
    await assertNoOverflow(page, 'with search results');
    await openRepo(page, 'LFM2', repos.text);
    await expect(page.locator('lmtab-repo-details lmtab-markdown')).toContainText('hybrid');
    await assertNoOverflow(page, 'with a repository open');
    await page.getByRole('radio', { name: 'WebGPU (MLC)' }).click();
    await assertNoOverflow(page, 'with the MLC filter');
  });
}
