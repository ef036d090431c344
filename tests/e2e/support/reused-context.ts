import { test as base, type BrowserContext, type CDPSession, type Page } from '@playwright/test';

/**
 * Playwright's `test` with one browser context per worker, emptied before each test, in place of a
 * fresh context per test. A fresh context installs the service worker and fetches its precache
 * again, and its first page reloads once to become cross-origin isolated: 4.3 s and 8 CPU-seconds
 * a test, against 1.0 s and 3.5 for a new page in a context that already has them (Chromium 156,
 * two cores).
 *
 * Before each test but the worker's first, `reset` gives the test what a fresh context would, less
 * the install: every page closed (the engine's tab with them), the service workers stopped (their
 * next start has none of the last test's memory), each origin's IndexedDB, localStorage, cookies,
 * file systems and caches deleted, except the service worker's precache, and its quota override
 * dropped; then the project's `storageState` written again. What a test set on the context (init
 * scripts, bindings, routes, permissions, offline, the viewport of its page) is undone.
 *
 * The app then opens as for a returning visitor whose site data was cleared: already controlled,
 * without the first visit's reload. The first visit itself is tested by the specs that make their
 * own contexts (engine-host, pwa, and every spec that opens the app from `browser`).
 */
export const test = base.extend<object, { reusedContext: ReusedContext }>({
  reusedContext: [
    async ({ browser }, use, workerInfo) => {
      const { baseURL, storageState } = workerInfo.project.use;
      const state = typeof storageState === 'object' ? storageState : undefined;
      const reused = new ReusedContext(await browser.newContext({ baseURL, storageState }), {
        baseURL,
        storageState: state,
      });
      await use(reused);
      await reused.context.close();
    },
    { scope: 'worker' },
  ],
  context: async ({ reusedContext }, use) => {
    await reusedContext.reset();
    await use(reusedContext.context);
  },
});

export { expect } from '@playwright/test';

type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;

/**
 * The cache a cleared site keeps: the service worker's precache. Its on-demand engine files go, so
 * that the origin's usage is what a fresh context's would be (hub-downloads sets a quota from it).
 */
const keptCaches = /^workbox-precache/;

/** What `clearDataForOrigin` deletes: everything of the origin but its service workers and caches. */
const clearedStorage = 'cookies,file_systems,indexeddb,local_storage,shader_cache,websql';

class ReusedContext {
  /** Origins the context's pages navigated to: the ones whose data `reset` deletes. */
  private readonly origins = new Set<string>();
  private readonly disposables: { dispose(): Promise<void> }[] = [];
  private used = false;
  /** The origin of the project's `baseURL`: the app, served by the suite's relay. */
  private readonly appOrigin?: string;

  constructor(
    readonly context: BrowserContext,
    private readonly options: { baseURL?: string; storageState?: StorageState },
  ) {
    this.appOrigin = options.baseURL ? new URL(options.baseURL).origin : undefined;
    if (this.appOrigin) this.origins.add(this.appOrigin);
    context.on('page', (page) => this.watch(page));
    this.keepDisposables();
  }

  /** Empties the context for the next test (nothing to do before the first). */
  async reset(): Promise<void> {
    if (!this.used) {
      this.used = true;
      return;
    }
    const { context } = this;
    await Promise.all(this.disposables.splice(0).map((d) => d.dispose().catch(() => {})));
    await context.unrouteAll({ behavior: 'ignoreErrors' });
    await context.clearPermissions();
    await context.setOffline(false);
    await context.setExtraHTTPHeaders({});
    await Promise.all(context.pages().map((page) => page.close()));
    const page = await context.newPage();
    try {
      const cdp = await context.newCDPSession(page);
      await cdp.send('ServiceWorker.enable');
      await cdp.send('ServiceWorker.stopAllWorkers');
      for (const origin of this.origins) await clearOrigin(cdp, origin, origin !== this.appOrigin);
      await cdp.detach();
      await context.clearCookies();
      await this.restoreApp(page);
    } finally {
      await page.close();
    }
  }

  /**
   * On a page of the app's origin (its precached manifest, which starts no app): deletes the caches
   * but the precache, and writes the project's localStorage again.
   */
  private async restoreApp(page: Page): Promise<void> {
    const state = this.options.storageState;
    if (state?.cookies.length) await this.context.addCookies(state.cookies);
    if (!this.appOrigin) return;
    const entries = state?.origins.find((o) => o.origin === this.appOrigin)?.localStorage ?? [];
    await page.goto(`${this.appOrigin}/manifest.webmanifest`);
    await page.evaluate(
      async ({ entries, kept }) => {
        const keep = new RegExp(kept);
        for (const name of await caches.keys()) if (!keep.test(name)) await caches.delete(name);
        for (const { name, value } of entries) localStorage.setItem(name, value);
      },
      { entries, kept: keptCaches.source },
    );
  }

  private watch(page: Page): void {
    page.on('framenavigated', (frame) => {
      const url = new URL(frame.url());
      if (url.protocol === 'http:' || url.protocol === 'https:') this.origins.add(url.origin);
    });
  }

  /** Remembers what a test adds to the context that only its handle can take away. */
  private keepDisposables(): void {
    const context = this.context;
    const keep = <T extends { dispose(): Promise<void> }>(made: Promise<T>): Promise<T> =>
      made.then((disposable) => {
        this.disposables.push(disposable);
        return disposable;
      });
    const addInitScript = context.addInitScript.bind(context);
    const exposeBinding = context.exposeBinding.bind(context);
    const exposeFunction = context.exposeFunction.bind(context);
    context.addInitScript = ((...args: Parameters<typeof addInitScript>) =>
      keep(addInitScript(...args))) as typeof addInitScript;
    context.exposeBinding = ((...args: Parameters<typeof exposeBinding>) =>
      keep(exposeBinding(...args))) as typeof exposeBinding;
    context.exposeFunction = ((...args: Parameters<typeof exposeFunction>) =>
      keep(exposeFunction(...args))) as typeof exposeFunction;
  }
}

/**
 * Deletes an origin's site data but its service worker (and its caches unless `caches`), and drops a
 * quota a test set for it.
 */
async function clearOrigin(cdp: CDPSession, origin: string, caches: boolean): Promise<void> {
  await cdp.send('Storage.overrideQuotaForOrigin', { origin });
  const storageTypes = caches ? `${clearedStorage},cache_storage` : clearedStorage;
  await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes });
}
