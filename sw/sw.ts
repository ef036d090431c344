/// <reference lib="webworker" />
import {
  fetchOverPort,
  isApiPath,
  requestToFrame,
  type HostAnnouncement,
  type HostWanted,
} from '../src/bridge/index.js';
import { errorResponse, streamErrorBytes } from '../src/api/wire-errors.js';

declare const self: ServiceWorkerGlobalScope;

/** Milliseconds to wait for a tab to hand over an engine port before answering 503. */
const hostWaitMs = 15_000;

interface Host {
  port: MessagePort;
  clientId: string;
}

let host: Host | undefined;
let hostWaiters: Array<(host: Host) => void> = [];

self.addEventListener('install', () => void self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('message', (event) => {
  const data = event.data as HostAnnouncement | undefined;
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

async function forward(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  const frame = await requestToFrame(request, crypto.randomUUID());
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
    streamFailure: (code, message, contentType) => streamErrorBytes(code, message, contentType),
  });
}

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (url.origin !== self.location.origin || !isApiPath(url.pathname)) return;
  // No waitUntil around the generation: Chrome cuts waitUntil at 300 s, a stream may run longer.
  event.respondWith(forward(event.request));
});
