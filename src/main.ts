// The page's main: registers the service worker, joins the engine host election and mounts the UI.
import { Workbox } from 'workbox-window';
import { startEngineHost } from './bridge/index.js';
import { engineQueryFlag } from './bridge/wire.js';
import { loadEngineSettings } from './engine/index.js';
import type { EngineSettings } from './engine/index.js';
import { hubHeadersFor, loadHubSettings } from './hub/index.js';
import { createIdbModelStore, DownloadManager } from './store/index.js';
import type { ModelStore } from './store/index.js';
import { createConversationStore, loadApiSettings, RelayServer } from './ui/index.js';
import type { LmtabApp } from './ui/index.js';
import packageJson from '../package.json';

/** Session flag: this tab already reloaded once to come under the worker's isolation headers. */
const isolationReloadKey = 'lmtab:isolation-reload';

/** How often an open app checks for a stored model before asking for the full offline copy. */
const offlineCopyCheckMs = 60_000;

function controllerChange(): Promise<void> {
  return new Promise((resolve) =>
    navigator.serviceWorker.addEventListener('controllerchange', () => resolve(), { once: true }),
  );
}

/** Activates the waiting worker and reloads the page once it controls it. */
function applyUpdate(workbox: Workbox): void {
  void controllerChange().then(() => location.reload());
  workbox.messageSkipWaiting();
}

/**
 * Registers the service worker through workbox-window, waits until it controls the page (the first
 * visit too: the worker claims it, so no reload is needed for the API) and offers a waiting update.
 * `bypassed`: the page loaded past an already active worker (a hard reload). With `updateFirst`, a
 * new version found now is applied at once instead: `reloading` says the page is about to reload.
 */
async function registerServiceWorker(
  app: LmtabApp | null,
  updateFirst: boolean,
): Promise<{ bypassed: boolean; reloading: boolean }> {
  const url = import.meta.env.DEV ? '/sw/sw.ts' : '/sw.js';
  const workbox = new Workbox(url, { type: 'module', scope: '/' });
  workbox.addEventListener('waiting', () => app && (app.updateState = 'waiting'));
  // Another tab accepted an update: this tab now runs old code under the new worker, which works.
  workbox.addEventListener('controlling', (event) => {
    if (event.isUpdate && app) app.updateState = 'activated';
  });
  const registration = await workbox.register({ immediate: true });
  app?.addEventListener('update-requested', () => {
    // Skip waiting only on request; the page reloads once the new worker controls it.
    if (!registration?.waiting) return location.reload();
    applyUpdate(workbox);
  });
  let bypassed = false;
  if (!navigator.serviceWorker.controller) {
    const controlled = controllerChange();
    // An active worker that does not control the page was bypassed (a hard reload): ask it to
    // claim the page. On a first visit the new worker claims it once active.
    const active = registration?.active ?? null;
    active?.postMessage({ type: 'lmtab:claim' });
    await controlled;
    bypassed = active !== null;
  }
  const reloading = updateFirst && registration !== undefined && (await updateNow(registration));
  if (reloading) {
    applyUpdate(workbox);
    // Nobody watches this tab: should the new worker never take control, reload all the same (the
    // next load finds the waiting worker and tries again) rather than never serve.
    setTimeout(() => location.reload(), 15_000);
  }
  return { bypassed, reloading };
}

/**
 * Checks the server for a new version of the app and waits while one installs. True when a new
 * worker is installed and waiting. A tab that serves the relay (the connect flag, as `lmtab serve
 * --headless` opens it) runs this before it serves: nobody is there to click "Reload to update",
 * and the worker's cache would otherwise keep serving the app from before an upgrade of lmtab.
 */
async function updateNow(registration: ServiceWorkerRegistration): Promise<boolean> {
  // Offline, or the server is gone: keep the version in the cache.
  await registration.update().catch(() => undefined);
  const installing = registration.installing;
  if (installing) {
    await new Promise<void>((resolve) => {
      const settled = () => {
        if (installing.state !== 'installing') resolve();
      };
      installing.addEventListener('statechange', settled);
      settled();
    });
  }
  return registration.waiting !== null;
}

/**
 * On a host that cannot send COOP/COEP, the page is isolated only once the service worker serves
 * it with those headers: reload once after it takes control. True when the page reloads.
 */
function reloadForIsolation(): boolean {
  if (globalThis.crossOriginIsolated) {
    sessionStorage.removeItem(isolationReloadKey);
    return false;
  }
  // Tried once in this tab already: carry on with one thread rather than loop.
  if (sessionStorage.getItem(isolationReloadKey) !== null) return false;
  sessionStorage.setItem(isolationReloadKey, '1');
  location.reload();
  return true;
}

/**
 * Once the store holds a model (checked a minute after the app opens, then each minute), asks the
 * service worker to store the engine files it keeps only once used (sw/on-demand-cache.ts): from
 * then on every build runs offline, WebGPU and projectors included. Once per page.
 */
function askForOfflineCopy(store: ModelStore): void {
  const check = async () => {
    const models = await store.list().catch(() => []);
    const worker = navigator.serviceWorker.controller;
    if (models.length === 0 || worker === null) return void setTimeout(check, offlineCopyCheckMs);
    worker.postMessage({ type: 'lmtab:store-engine-files' });
  };
  setTimeout(check, offlineCopyCheckMs);
}

function startEngineWorker(settings: EngineSettings) {
  const worker = new Worker(new URL('./worker-main.ts', import.meta.url), {
    type: 'module',
    name: 'lmtab-engine',
  });
  worker.postMessage({
    type: 'init',
    settings,
    hub: loadHubSettings(),
    api: loadApiSettings(),
    version: packageJson.version,
    // The e2e tests set this to reach the engine's test hooks (worker-main.ts).
    testHooks: localStorage.getItem('lmtab-test-hooks') === '1',
  });
  return {
    connect(): MessagePort {
      const channel = new MessageChannel();
      worker.postMessage({ type: 'connect' }, [channel.port1]);
      return channel.port2;
    },
  };
}

async function main(): Promise<void> {
  document.documentElement.dataset.build = __LMTAB_BUILD__;
  const app = document.querySelector<LmtabApp>('lmtab-app');
  if (!('serviceWorker' in navigator)) {
    app?.setAttribute(
      'fatal',
      'This browser has no service workers: lmtab needs them to serve its API.',
    );
    return;
  }
  // A headless engine (lmtab serve --headless) opens the app with this flag to serve the relay.
  const { name, value } = engineQueryFlag;
  const servesRelay = new URLSearchParams(location.search).get(name) === value;
  const { bypassed, reloading } = await registerServiceWorker(app, servesRelay);
  if (reloading) return;
  // After a hard reload Chrome bypasses the worker for reloads of that page too: a reload would
  // not isolate it, so it runs with one thread until the next normal visit.
  if (!bypassed && reloadForIsolation()) return;
  const host = startEngineHost({
    startEngine: () => startEngineWorker(loadEngineSettings()),
    // Tests and people can see which tab holds the engine.
    onHost: () => app?.setAttribute('data-engine-host', ''),
  });
  const relayServer = new RelayServer({
    connect: () => host.connect(),
    version: packageJson.version,
  });
  if (servesRelay) relayServer.start();
  if (app) {
    const store = createIdbModelStore();
    // One download manager per page: a reload lists unfinished downloads and resumes them.
    const downloads = new DownloadManager({
      store,
      headers: (url) => hubHeadersFor(url, loadHubSettings()),
    });
    void downloads.start();
    askForOfflineCopy(store);
    app.store = store;
    app.downloads = downloads;
    app.engineHost = host;
    app.conversations = createConversationStore();
    app.relayServer = relayServer;
    app.ready = true;
  }
}

void main();
