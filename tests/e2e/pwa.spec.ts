import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { startStaticServer, type StaticServer } from '../support/static-server.js';
import { importModel, openTab } from './support/app.js';
import { testPorts } from '../support/test-ports.js';

/** Plain static servers of these tests (no COOP/COEP headers). */
const staticPort = testPorts.pwaStatic;
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const distDir = fileURLToPath(new URL('../../dist/', import.meta.url));
const buildsDir = fileURLToPath(new URL('../.cache/pwa-builds/', import.meta.url));
/** The build id of `dist/`: the package's version (vite.config.ts, without LMTAB_BUILD_ID). */
const { version } = JSON.parse(await readFile(`${repoRoot}package.json`, 'utf8')) as {
  version: string;
};

/** Builds the app into `outDir` with a build id of its own (`npm run build` made `dist/`). */
async function buildApp(outDir: string, buildId: string): Promise<void> {
  await promisify(execFile)(
    process.execPath,
    [
      'node_modules/vite/bin/vite.js',
      'build',
      '--outDir',
      outDir,
      '--emptyOutDir',
      '--logLevel',
      'warn',
    ],
    { cwd: repoRoot, env: { ...process.env, LMTAB_BUILD_ID: buildId } },
  );
}

/**
 * Waits until the service worker controls the page and the page is cross-origin isolated (on a
 * header-less host that takes the one automatic reload), and the app is ready.
 */
async function waitForApp(page: Page): Promise<void> {
  await expect
    .poll(() =>
      page
        .evaluate(
          () =>
            navigator.serviceWorker.controller !== null &&
            crossOriginIsolated &&
            document.querySelector('lmtab-app')?.ready === true,
        )
        .catch(() => false),
    )
    .toBe(true);
}

/**
 * Puts the tiny model into the store. Hub downloads land after the merge; then this becomes a
 * download from the fake hub and nothing else in these tests changes.
 */
function storeTinyModel(page: Page): Promise<string> {
  return importModel(page, 'tiny-lfm2.gguf');
}

async function chat(page: Page, model: string) {
  return page.evaluate(async (model) => {
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
    const body = (await response.json()) as { choices?: { message: { content: string } }[] };
    return { status: response.status, content: body.choices?.[0]?.message.content ?? '' };
  }, model);
}

const build = (page: Page) => page.evaluate(() => document.documentElement.dataset.build);

test.describe('offline PWA on a static host', () => {
  let server: StaticServer | undefined;
  let persistent: BrowserContext | undefined;
  test.afterEach(async () => {
    await persistent?.close();
    persistent = undefined;
    await server?.close();
    server = undefined;
  });

  test('is installable, and once a model is stored the app opens and chats with the network off', async ({
    playwright,
  }, testInfo) => {
    // Chrome installs nothing from an incognito profile (every Playwright context is one).
    const profile = `${buildsDir}profile`;
    await rm(profile, { recursive: true, force: true });
    const context = await playwright.chromium.launchPersistentContext(profile, {
      ...testInfo.project.use.launchOptions,
    });
    persistent = context;
    const page = context.pages()[0] ?? (await context.newPage());
    server = await startStaticServer({ root: distDir, port: staticPort });
    await page.goto(server.url);
    await waitForApp(page);
    const cdp = await context.newCDPSession(page);
    const manifest = await cdp.send('Page.getAppManifest');
    expect(manifest.url).toBe(`${server.url}/manifest.webmanifest`);
    expect(manifest.errors).toEqual([]);
    expect((await cdp.send('Page.getInstallabilityErrors')).installabilityErrors).toEqual([]);

    const model = await storeTinyModel(page);
    // The install stored the app and lmtab's CPU build; the files of the other builds wait for
    // their first use, or for the app's request once it holds a model (a minute in, sent here).
    const onDemandFiles = () =>
      page.evaluate(async () => (await (await caches.open('lmtab-on-demand')).keys()).length);
    expect(await onDemandFiles()).toBe(0);
    await page.evaluate(() =>
      navigator.serviceWorker.controller?.postMessage({ type: 'lmtab:store-engine-files' }),
    );
    await expect.poll(onDemandFiles).toBe(3);
    await server.close();
    await context.setOffline(true);
    const served = server.requests.length;
    await page.reload();
    await waitForApp(page);
    await openTab(page, 'Chat');
    await expect(page.getByLabel('Model', { exact: true })).toHaveValue(model);
    // A bounded answer: random weights rarely stop by themselves.
    await page.getByRole('spinbutton', { name: 'Max tokens', exact: true }).fill('32');
    await page.getByLabel('Message').fill('Hello, offline model');
    await page.getByRole('button', { name: 'Send' }).click();
    const answer = page.locator('[data-role="assistant"]').first();
    await expect(answer.locator('.stats')).toContainText('tok/s', { timeout: 120_000 });
    // The answer's text lives in shadow roots, which innerText skips; Playwright's text pierces them.
    await expect(answer).toContainText(/\S[\s\S]{10,}/);
    const viaApi = await chat(page, model);
    expect(viaApi.status).toBe(200);
    expect(viaApi.content.length).toBeGreaterThan(0);
    expect(server.requests.length).toBe(served);
  });

  test('a static host without COOP/COEP: the service worker isolates the page and the engine runs threads', async ({
    page,
  }) => {
    server = await startStaticServer({ root: distDir, port: staticPort });
    const first = await page.goto(server.url);
    expect(first?.headers()['cross-origin-embedder-policy']).toBeUndefined();
    await waitForApp(page);
    const headers = await page.evaluate(async () => {
      const response = await fetch('/index.html');
      return [...response.headers].filter(([name]) => name.startsWith('cross-origin'));
    });
    expect(headers).toEqual(
      expect.arrayContaining([
        ['cross-origin-embedder-policy', 'require-corp'],
        ['cross-origin-opener-policy', 'same-origin'],
      ]),
    );
    const model = await storeTinyModel(page);
    expect((await chat(page, model)).status).toBe(200);
    const engine = await page.evaluate(async () => (await fetch('/api/lmtab/engine')).json());
    expect(engine.crossOriginIsolated).toBe(true);
    expect(engine.threads).toBeGreaterThan(1);
    expect(engine.loaded[0].info.threads).toBeGreaterThan(1);
    await expect(page.getByTestId('engine-info')).toContainText(/WebAssembly, [2-9]\d* threads/);
  });

  test('after a hard reload, which bypasses the service worker, the worker claims the page again', async ({
    context,
    page,
  }) => {
    server = await startStaticServer({ root: distDir, port: staticPort });
    await page.goto(server.url);
    await waitForApp(page);
    const cdp = await context.newCDPSession(page);
    const served = server.requests.length;
    await cdp.send('Page.reload', { ignoreCache: true });
    await expect
      .poll(() =>
        page
          .evaluate(
            () =>
              navigator.serviceWorker.controller !== null &&
              document.querySelector('lmtab-app')?.ready === true,
          )
          .catch(() => false),
      )
      .toBe(true);
    // The API answers through the worker again; Chrome keeps bypassing the worker on reloads of a
    // hard-reloaded page, so the app does not reload in vain for isolation.
    expect((await chat(page, 'none')).status).toBe(404);
    expect(server.requests.slice(served).filter((path) => path === '/')).toHaveLength(1);
  });

  test('a new build waits until "Reload to update", and the API answers across the update', async ({
    context,
  }) => {
    test.setTimeout(300_000);
    // The build every spec runs (`dist/`, id: the version) is the one people have; the new one is
    // built here with an id of its own.
    const before = distDir;
    const after = `${buildsDir}after`;
    await buildApp(after, 'after');
    server = await startStaticServer({ root: before, port: staticPort });

    const host = await context.newPage();
    await host.goto(server.url);
    await waitForApp(host);
    await expect(host.locator('lmtab-app')).toHaveAttribute('data-engine-host', '');
    const model = await storeTinyModel(host);
    const other = await context.newPage();
    await other.goto(server.url);
    await waitForApp(other);
    expect(await build(other)).toBe(version);

    server.setRoot(after);
    await other.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.update());
    const reload = other.getByRole('button', { name: 'Reload to update' });
    await expect(reload).toBeVisible();
    // The new worker waits: the old one still answers, and still serves the old build.
    expect((await chat(other, model)).status).toBe(200);
    await other.reload();
    await waitForApp(other);
    expect(await build(other)).toBe(version);

    await other.getByRole('button', { name: 'Reload to update' }).click();
    await expect.poll(() => build(other).catch(() => undefined)).toBe('after');
    await waitForApp(other);
    // The new worker asks the tabs for the engine: the host tab still runs the old build.
    expect(await build(host)).toBe(version);
    const viaNewWorker = await chat(other, model);
    expect(viaNewWorker.status).toBe(200);
    expect(viaNewWorker.content.length).toBeGreaterThan(0);
    expect((await chat(host, model)).status).toBe(200);
    await expect(host.getByRole('button', { name: 'Reload', exact: true })).toBeVisible();

    await host.reload();
    await waitForApp(host);
    expect(await build(host)).toBe('after');
    expect((await chat(host, model)).status).toBe(200);
  });
});
