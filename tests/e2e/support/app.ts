import { build } from 'esbuild';
import type { test as playwrightTest } from '@playwright/test';
import { expect, type BrowserContext, type Page } from '@playwright/test';
import { join } from 'node:path';
import type { EngineSettings } from '../../../src/engine/index.js';
import { fixtureDir } from './paths.js';

const pageBundles = new Map<string, Promise<string>>();

/**
 * An ES module's lines (imports of npm packages, assignments to `window`) bundled by esbuild into a
 * script for a page, once per run: evaluated rather than added as an inline <script>, which the
 * app's CSP refuses.
 */
export function bundleForPage(lines: readonly string[]): Promise<string> {
  const contents = lines.join('\n');
  let bundle = pageBundles.get(contents);
  if (!bundle) {
    bundle = build({
      stdin: { contents, resolveDir: process.cwd() },
      bundle: true,
      format: 'iife',
      platform: 'browser',
      write: false,
      logLevel: 'silent',
    }).then((result) => result.outputFiles[0]!.text);
    pageBundles.set(contents, bundle);
  }
  return bundle;
}

/** The official `openai` npm package bundled for the page: `window.OpenAI`, and `window.openai` on `/v1`. */
const bundleOpenAi = () =>
  bundleForPage([
    "import OpenAI from 'openai';",
    'window.OpenAI = OpenAI;',
    // The way page code uses the SDK with lmtab: its own origin, any key.
    "window.openai = new OpenAI({ baseURL: location.origin + '/v1', apiKey: 'any', dangerouslyAllowBrowser: true });",
  ]);

/** The official `@anthropic-ai/sdk` bundled for the page: `window.anthropic` on the page's origin. */
const bundleAnthropic = () =>
  bundleForPage([
    "import Anthropic from '@anthropic-ai/sdk';",
    // As Anthropic clients are pointed at lmtab: the base URL without /v1, any key.
    "window.anthropic = new Anthropic({ baseURL: location.origin, apiKey: 'any', dangerouslyAllowBrowser: true, maxRetries: 0 });",
  ]);

/** Loads the bundled Anthropic client into the page as `window.anthropic`. */
export async function installAnthropic(page: Page): Promise<void> {
  // Evaluated rather than added as an inline <script>, which the app's CSP refuses.
  await page.evaluate(await bundleAnthropic());
}

/** Path of a generated fixture file. */
export function fixture(name: string): string {
  return join(fixtureDir, name);
}

/** Opens the app and waits until the service worker controls the page (first visit included). */
export async function openApp(page: Page): Promise<void> {
  await page.goto('/');
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
}

/** Selects one of the app's tabs (Chat, Developer, My Models, Discover) by its name. */
export async function openTab(page: Page, name: string): Promise<void> {
  const tab = page.getByRole('tab', { name, exact: true });
  await tab.click();
  await expect(tab).toHaveAttribute('aria-selected', 'true');
}

/**
 * Imports a GGUF fixture through My Models' "Import model file" control, with an optional projector,
 * then goes back to the tab that was showing. `timeout` (ms) bounds the import; default the
 * expectation timeout (30 s), enough for the tiny fixtures.
 */
export async function importModel(
  page: Page,
  file: string,
  projector?: string,
  { timeout }: { timeout?: number } = {},
): Promise<string> {
  const previous = (await page.getByRole('tab', { selected: true }).innerText()).trim();
  await openTab(page, 'My Models');
  const panel = page.getByRole('tabpanel', { name: 'My Models' });
  if (projector)
    await panel.getByLabel('Projector file (optional)').setInputFiles(fixture(projector));
  await panel.getByLabel('Import model file').setInputFiles(fixture(file));
  const id = file.replace(/\.gguf$/, '');
  await expect(panel.getByRole('status')).toHaveText(`Imported ${id}`, { timeout });
  if (previous !== 'My Models') await openTab(page, previous);
  return id;
}

/** A page that runs a script: Playwright's, or puppeteer's (Firefox, support/firefox.ts). */
export interface ScriptPage {
  evaluate(script: string): Promise<unknown>;
}

/** Loads the bundled `openai` client into the page as `window.openai`. */
export async function installOpenAi(page: ScriptPage): Promise<void> {
  // Evaluated rather than added as an inline <script>, which the app's CSP refuses.
  await page.evaluate(await bundleOpenAi());
}

/** A small PNG made in the page, as a data URI (the vision fixture reads real pixels). */
export async function pngDataUri(page: Page, width = 64, height = 48): Promise<string> {
  return page.evaluate(
    async ([w, h]) => {
      const canvas = new OffscreenCanvas(w, h);
      const ctx = canvas.getContext('2d')!;
      ctx.fillStyle = '#3b5bdb';
      ctx.fillRect(0, 0, w, h);
      ctx.fillStyle = '#ffd43b';
      ctx.fillRect(w / 4, h / 4, w / 2, h / 2);
      const blob = await canvas.convertToBlob({ type: 'image/png' });
      const bytes = new Uint8Array(await blob.arrayBuffer());
      let binary = '';
      for (const b of bytes) binary += String.fromCharCode(b);
      return `data:image/png;base64,${btoa(binary)}`;
    },
    [width, height] as const,
  );
}

/** Makes every page of `context` start its engine with `settings` (the Developer tab's load settings). */
export async function withEngineSettings(
  context: BrowserContext,
  settings: EngineSettings,
): Promise<void> {
  await context.addInitScript(
    (saved) => localStorage.setItem('lmtab.engine-settings', saved),
    JSON.stringify(settings),
  );
}

/**
 * One app page for every test of the calling file, in place of Playwright's fresh page per test: a
 * fresh context installs the service worker and its 15 MB precache again, and its engine starts
 * anew (4.2 s and 7 to 8 CPU-seconds a test on two cores; see also `reused-context.ts`). The page opens in `beforeAll` and
 * closes in `afterAll`, so the next file finds no engine tab of this one; a failed test restarts
 * the worker, and the next test gets a new page. `importOnce` imports each fixture once per page.
 * For specs whose tests leave nothing behind that another reads (no stored lists, no settings).
 */
export function oneAppPage(base: typeof playwrightTest) {
  let context: BrowserContext | undefined;
  let shared: Page | undefined;
  const imports = new Map<string, Promise<string>>();
  base.beforeAll(async ({ browser }, testInfo) => {
    const { baseURL, storageState } = testInfo.project.use;
    const opened = await browser.newContext({ baseURL, storageState });
    context = opened;
    shared = await opened.newPage();
    await openApp(shared);
  });
  base.afterAll(async () => {
    imports.clear();
    await context?.close();
  });
  const test = base.extend<{ page: Page }>({
    // eslint-disable-next-line no-empty-pattern
    page: async ({}, use) => use(shared!),
  });
  const importOnce = (page: Page, file: string, projector?: string): Promise<string> => {
    const key = `${file} ${projector ?? ''}`;
    let id = imports.get(key);
    if (id === undefined) {
      id = importModel(page, file, projector);
      imports.set(key, id);
    }
    return id;
  };
  return { test, importOnce };
}
