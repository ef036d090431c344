// The page's main: registers the service worker, joins the engine host election and mounts the UI.
import { engineQueryFlag, startEngineHost } from './bridge/index.js';
import type { EngineSettings } from './engine/index.js';
import { hubHeadersFor, loadHubSettings } from './hub/index.js';
import { createIdbModelStore, DownloadManager } from './store/index.js';
import { createConversationStore, loadEngineSettings, RelayServer } from './ui/index.js';
import type { LmtabApp } from './ui/index.js';
import packageJson from '../package.json';

async function registerServiceWorker(): Promise<void> {
  const container = navigator.serviceWorker;
  const url = import.meta.env.DEV ? '/sw/sw.ts' : '/sw.js';
  await container.register(url, { type: 'module', scope: '/' });
  // The first visit is not controlled yet: wait for clients.claim() instead of asking for a reload.
  if (!container.controller) {
    await new Promise((resolve) =>
      container.addEventListener('controllerchange', resolve, { once: true }),
    );
  }
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
    version: packageJson.version,
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
  const app = document.querySelector<LmtabApp>('lmtab-app');
  if (!('serviceWorker' in navigator)) {
    app?.setAttribute(
      'fatal',
      'This browser has no service workers: lmtab needs them to serve its API.',
    );
    return;
  }
  await registerServiceWorker();
  const host = startEngineHost({
    startEngine: () => startEngineWorker(loadEngineSettings()),
    // Tests and people can see which tab holds the engine.
    onHost: () => app?.setAttribute('data-engine-host', ''),
  });
  const relayServer = new RelayServer({
    connect: () => host.connect(),
    version: packageJson.version,
  });
  // A headless engine (lmtab serve --headless) opens the app with this flag to serve the relay.
  const { name, value } = engineQueryFlag;
  if (new URLSearchParams(location.search).get(name) === value) relayServer.start();
  if (app) {
    const store = createIdbModelStore();
    // One download manager per page: a reload lists unfinished downloads and resumes them.
    const downloads = new DownloadManager({
      store,
      headers: (url) => hubHeadersFor(url, loadHubSettings()),
    });
    void downloads.start();
    app.store = store;
    app.downloads = downloads;
    app.engineHost = host;
    app.conversations = createConversationStore();
    app.relayServer = relayServer;
    app.ready = true;
  }
}

void main();
