/// <reference lib="webworker" />
// The one service worker of the origin: the API shim (/v1, /api -> the engine host tab), the stored
// model files web-llm loads, the offline precache of the app shell, and COOP/COEP on everything it
// serves so the app is cross-origin isolated even on a static host that cannot set headers.
import { PrecacheController, PrecacheRoute } from 'workbox-precaching';
import type { PrecacheEntry } from 'workbox-precaching';
import { NavigationRoute, Router } from 'workbox-routing';
import { fetchOverPort, requestToFrame } from '../src/bridge/index.js';
import {
  isApiPath,
  pulledBodyPath,
  type EnginePortRefused,
  type EnginePortWanted,
  type HostAnnouncement,
  type HostWanted,
} from '../src/bridge/wire.js';
import { errorResponse, streamErrorBytes } from '../src/api/wire.js';
import { createIdbModelStore, serveStoredFile, storedFilePrefix } from '../src/store/index.js';
import { createOnDemandCache, type OnDemandEntry } from './on-demand-cache.js';
import { withIsolationHeaders } from './with-isolation-headers.js';

declare const self: ServiceWorkerGlobalScope & {
  /** The files stored at install; replaced at build by workbox-build's injectManifest; absent under `vite dev`. */
  __WB_MANIFEST?: Array<PrecacheEntry | string>;
  /** The engine files stored when first used (on-demand-cache.ts); replaced at build the same way. */
  __LMTAB_ON_DEMAND?: Array<OnDemandEntry | string>;
};

/** Milliseconds to wait for a tab to hand over an engine port before answering 503. */
const hostWaitMs = 15_000;

/** The message workbox-window's `messageSkipWaiting()` sends when a person accepts an update. */
interface SkipWaiting {
  type: 'SKIP_WAITING';
}

/** Sent by a page that an active worker does not control (after a hard reload). */
interface ClaimRequest {
  type: 'lmtab:claim';
}

/** Sent by a page once it holds a stored model: store every on-demand engine file for offline use. */
interface StoreEngineFiles {
  type: 'lmtab:store-engine-files';
}

interface Host {
  port: MessagePort;
  clientId: string;
}

let host: Host | undefined;
let hostWaiters: Array<(host: Host) => void> = [];

const onDemand = createOnDemandCache({ entries: self.__LMTAB_ON_DEMAND ?? [] });

// A first install activates at once; an update waits for "Reload to update" (SKIP_WAITING).
self.addEventListener('activate', (event) =>
  event.waitUntil(Promise.all([self.clients.claim(), onDemand.prune()])),
);

self.addEventListener('message', (event) => {
  const data = event.data as
    HostAnnouncement | SkipWaiting | ClaimRequest | StoreEngineFiles | EnginePortWanted | undefined;
  if (data?.type === 'lmtab:store-engine-files') {
    // Offline without a network copy later: an unreachable server leaves the rest for next time.
    event.waitUntil(onDemand.storeAll().catch(() => undefined));
    return;
  }
  if (data?.type === 'lmtab:engine-port' && event.ports[0]) {
    event.waitUntil(passPortWanted(event.ports[0]));
    return;
  }
  if (data?.type === 'SKIP_WAITING') {
    event.waitUntil(self.skipWaiting());
    return;
  }
  if (data?.type === 'lmtab:claim') {
    event.waitUntil(self.clients.claim());
    return;
  }
  const source = event.source as Client | null;
  if (data?.type !== 'lmtab:host' || !event.ports[0] || !source) return;
  host = { port: event.ports[0], clientId: source.id };
  for (const resolve of hostWaiters.splice(0)) resolve(host);
});

async function isAlive(clientId: string): Promise<boolean> {
  return (await self.clients.get(clientId)) !== undefined;
}

/** The port of the engine host tab, asking every tab for one when the worker has none. */
async function findHost(): Promise<Host | undefined> {
  if (host && (await isAlive(host.clientId))) return host;
  host = undefined;
  const found = new Promise<Host | undefined>((resolve) => {
    hostWaiters.push(resolve);
    setTimeout(() => {
      hostWaiters = hostWaiters.filter((w) => w !== resolve);
      resolve(undefined);
    }, hostWaitMs);
  });
  const tabs = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  for (const tab of tabs) tab.postMessage({ type: 'lmtab:need-host' } satisfies HostWanted);
  return found;
}

/** Passes a page's request for an engine port on to the host tab (see EnginePortWanted). */
async function passPortWanted(reply: MessagePort): Promise<void> {
  const current = await findHost();
  const tab = current && (await self.clients.get(current.clientId));
  if (!current || !tab) {
    reply.postMessage({
      type: 'lmtab:engine-port-refused',
      message: 'No tab is running the lmtab engine: open the lmtab app in a tab and try again.',
    } satisfies EnginePortRefused);
    return;
  }
  tab.postMessage({ type: 'lmtab:engine-port' } satisfies EnginePortWanted, [reply]);
}

async function forward(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  const frame = requestToFrame(request, crypto.randomUUID());
  const current = await findHost();
  if (!current) {
    return errorResponse(
      pathname,
      'no_engine',
      'No tab is running the lmtab engine: open the lmtab app in a tab and try again.',
    );
  }
  return fetchOverPort(current.port, frame, {
    signal: request.signal,
    isHostAlive: async () => {
      const alive = await isAlive(current.clientId);
      if (!alive && host === current) host = undefined;
      return alive;
    },
    failure: (code, message) => errorResponse(pathname, code, message),
    streamFailure: (code, message, contentType) =>
      streamErrorBytes(code, message, contentType, pathname),
  });
}

const isolation = {
  handlerWillRespond: ({ response }: { response: Response }) =>
    Promise.resolve(withIsolationHeaders(response)),
};
const precache = new PrecacheController({ plugins: [isolation] });
const manifest = self.__WB_MANIFEST ?? [];
// Adds the install (download every entry) and activate (drop stale entries) listeners.
precache.precache(manifest);

const router = new Router();
router.registerRoute(new PrecacheRoute(precache));
if (precache.getCacheKeyForURL('/index.html') !== undefined) {
  // Any page path opens the app shell, from the cache when offline.
  router.registerRoute(new NavigationRoute(precache.createHandlerBoundToURL('/index.html')));
}
// Everything else of the origin (the dev server's modules, the relay's pages) from the network.
router.setDefaultHandler(async ({ request }) => withIsolationHeaders(await fetch(request)));

const store = createIdbModelStore();

self.addEventListener('fetch', (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  // The API first. No waitUntil around the generation: Chrome cuts waitUntil at 300 s.
  if (isApiPath(url.pathname)) {
    event.respondWith(forward(request));
    return;
  }
  if (request.method !== 'GET') return;
  // A request body an engine tab fetches from the relay: straight from the network, unbuffered.
  if (url.pathname.startsWith(pulledBodyPath)) return;
  if (onDemand.has(request.url)) {
    event.respondWith(onDemand.respond(request).then(withIsolationHeaders));
    return;
  }
  if (url.pathname.startsWith(storedFilePrefix)) {
    event.respondWith(serveStoredFile(store, url.pathname).then(withIsolationHeaders));
    return;
  }
  const response = router.handleRequest({ event, request });
  if (response) event.respondWith(response);
});
