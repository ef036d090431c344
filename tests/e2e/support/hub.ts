import { expect, type Page } from '@playwright/test';
import { featuredModels } from '../../../src/hub/index.js';
import { startFakeHub } from '../../support/fake-hub.js';
import type { FakeHub, FakeHubRepo } from '../../support/fake-hub.js';
import { encodeGguf } from '../../support/gguf-writer.js';
import { ensureFixtures, fixtureModel } from '../../support/lfm2-fixtures.js';
import { ensureEmbeddingFixtures } from '../../support/embedding-fixtures.js';
import { ensureAudioFixtures, type AudioFixturePaths } from '../../support/audio-fixtures.js';
import { splitGgufModel } from '../../support/split-gguf.js';
import { fixtureDir } from './paths.js';
import { openTab } from './app.js';

/** The fixture repositories the e2e fake hub serves. */
export const repos = {
  text: 'LiquidAI/LFM2-350M-GGUF',
  vision: 'LiquidAI/LFM2-VL-450M-GGUF',
  split: 'LiquidAI/LFM2-Split-GGUF',
  gated: 'acme/LFM2-Gated-GGUF',
} as const;

/** The model file most tests download (the tiny `lfm2` fixture, 396,320 bytes). */
export const textFile = `${repos.text}/LFM2-350M-Q4_K_M.gguf`;
/** Its id once stored. */
export const textId = `hf.co/${repos.text}:Q4_K_M`;

/** The model card of the text repository: front matter and HTML as real cards have them. */
export const textCard = [
  '---',
  'license: other',
  'tags: [liquid, lfm2]',
  '---',
  '<div align="center"><img src="https://example.invalid/logo.png" alt="Liquid AI"/></div>',
  '',
  '# LFM2-350M',
  '',
  'A **hybrid** model for edge devices.',
  '',
  '<script>window.cardScriptRan = true</script>',
  '',
].join('\n');

/**
 * The featured repositories (src/hub/featured-models.ts) the tests above do not already serve,
 * each with a tiny fixture under the real file names: `<MODEL>-Q4_K_M.gguf`, and for vision and
 * audio models `mmproj-<MODEL>-F16.gguf`.
 */
function featuredRepos(
  paths: Awaited<ReturnType<typeof ensureFixtures>>,
  reranker: string,
  audio: AudioFixturePaths,
  served: readonly string[],
): FakeHubRepo[] {
  return featuredModels
    .filter((model) => !served.includes(model.repo))
    .map((model) => {
      const stem = model.repo.split('/')[1]!.replace(/-GGUF$/, '');
      const vision = model.capabilities.includes('vision');
      const hears = model.capabilities.includes('audio');
      const projector = vision ? paths.mmproj : hears ? audio.projector : undefined;
      const file = vision
        ? paths.lfm2Vl
        : hears
          ? audio.model
          : model.capabilities.includes('moe')
            ? paths.lfm2moe
            : model.capabilities.includes('rerank')
              ? reranker
              : paths.lfm2;
      return {
        id: model.repo,
        downloads: 1000,
        likes: 10,
        ...(vision
          ? { pipelineTag: 'image-text-to-text', tags: ['gguf', 'image-text-to-text'] }
          : {}),
        files: [
          { path: `${stem}-Q4_K_M.gguf`, file },
          ...(projector ? [{ path: `mmproj-${stem}-F16.gguf`, file: projector }] : []),
        ],
      };
    });
}

/** Starts a fake hub on an ephemeral port serving the tiny fixtures as LFM2 repositories. */
export async function startE2eHub(): Promise<FakeHub> {
  const paths = await ensureFixtures(fixtureDir);
  const { bertReranker } = await ensureEmbeddingFixtures(fixtureDir);
  const audio = await ensureAudioFixtures(fixtureDir);
  const split = splitGgufModel(fixtureModel('lfm2'), 2).map((part) => encodeGguf(part));
  return startFakeHub({
    repos: [
      ...featuredRepos(paths, bertReranker, audio, [repos.text, repos.vision]),
      {
        id: repos.text,
        downloads: 5200,
        likes: 120,
        lastModified: new Date(Date.now() - 3 * 24 * 3600_000).toISOString(),
        files: [
          { path: 'README.md', bytes: new TextEncoder().encode(textCard) },
          { path: 'LFM2-350M-Q4_K_M.gguf', file: paths.lfm2 },
          { path: 'LFM2-350M-Q8_0.gguf', file: paths.lfm2moe },
        ],
      },
      {
        id: repos.vision,
        downloads: 3100,
        likes: 80,
        pipelineTag: 'image-text-to-text',
        tags: ['gguf', 'image-text-to-text'],
        files: [
          { path: 'LFM2-VL-450M-Q4_K_M.gguf', file: paths.lfm2Vl },
          { path: 'mmproj-LFM2-VL-450M-F16.gguf', file: paths.mmproj },
        ],
      },
      {
        id: repos.split,
        downloads: 10,
        files: split.map((bytes, i) => ({
          path: `LFM2-Split-Q8_0-0000${i + 1}-of-00002.gguf`,
          bytes,
        })),
      },
      {
        id: repos.gated,
        downloads: 5,
        gated: true,
        files: [{ path: 'LFM2-Gated-Q4_K_M.gguf', file: paths.lfm2 }],
      },
      { id: 'meta/Llama-Other-GGUF', downloads: 9000, files: [] },
    ],
  });
}

/** Points the app at the fake hub before any of its scripts run (the engine worker reads it too). */
export async function useHub(page: Page, hub: FakeHub, token?: string): Promise<void> {
  await page.addInitScript(
    ([endpoint, token]) => {
      if (localStorage.getItem('lmtab.hub-settings') === null) {
        localStorage.setItem('lmtab.hub-settings', JSON.stringify({ endpoint, token }));
      }
    },
    [hub.url, token] as const,
  );
}

/** Searches the Discover view, opens a repository and waits for its quantizations. */
export async function openRepo(page: Page, query: string, repo: string): Promise<void> {
  await openTab(page, 'Discover');
  await page.getByLabel('Search models').fill(query);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.getByRole('button', { name: new RegExp(`^${escapeRegExp(repo)}, `) }).click();
  await expect(page.getByRole('group', { name: `Quantization of ${repo}` })).toBeVisible();
}

/** The text as a regular expression matching it literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Opens Discover's hub settings (folded by default). */
export async function openHubSettings(page: Page): Promise<void> {
  const details = page.locator('lmtab-discover-view details.settings');
  if ((await details.getAttribute('open')) === null) await details.locator('summary').click();
  await expect(page.getByLabel('Hub endpoint')).toBeVisible();
}

/** The featured card of a repository. */
export function featuredCard(page: Page, repo: string) {
  return page.locator(`lmtab-featured-models article[data-repo="${repo}"]`);
}

/** The downloads panel's entry of a model. */
export function downloadItem(page: Page, id: string) {
  return page.locator(`lmtab-download-list li[data-id="${id}"]`);
}

/** Records and chunks in the app's IndexedDB databases. */
export function storedCounts(page: Page): Promise<{ records: number; chunks: number }> {
  return page.evaluate(async () => {
    const count = (name: string, store: string) =>
      new Promise<number>((resolve, reject) => {
        const open = indexedDB.open(name);
        open.onerror = () => reject(open.error);
        open.onupgradeneeded = () => open.result.createObjectStore(store);
        open.onsuccess = () => {
          const db = open.result;
          const request = db.transaction(store, 'readonly').objectStore(store).count();
          request.onsuccess = () => {
            db.close();
            resolve(request.result);
          };
          request.onerror = () => reject(request.error);
        };
      });
    return {
      records: await count('lmtab-models', 'records'),
      chunks: await count('lmtab-chunks', 'chunks'),
    };
  });
}

/** Bytes of storage the origin uses, as the page sees them. */
export function usage(page: Page): Promise<number> {
  return page.evaluate(async () => (await navigator.storage.estimate()).usage ?? 0);
}
