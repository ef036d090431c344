/// <reference lib="webworker" />
// The engine worker: owns the engine, the API router and a view of the model store. Tabs and the
// service worker reach it through ports carrying request frames.
import wasmUrl from '@wllama/wllama/esm/wasm/wllama.wasm?url';
import { createRouter } from './api/index.js';
import { servePort } from './bridge/index.js';
import { createEngineSwitch, createWebLlmEngine, createWllamaEngine } from './engine/index.js';
import type { EngineSettings } from './engine/index.js';
import { createIdbModelStore } from './store/index.js';

declare const self: DedicatedWorkerGlobalScope;

/** Messages the page sends this worker. */
type WorkerMessage =
  { type: 'init'; settings: EngineSettings; version: string } | { type: 'connect' };

let handler: ReturnType<typeof createRouter>['handle'] | undefined;
const pending: MessagePort[] = [];

self.onmessage = (event: MessageEvent<WorkerMessage>) => {
  const message = event.data;
  if (message.type === 'init') {
    const store = createIdbModelStore();
    const engine = createEngineSwitch({
      store,
      engines: {
        gguf: createWllamaEngine({ store, wasmUrl, ...message.settings }),
        // MLC models load from the store through the service worker's /lmtab-store/ URLs.
        mlc: createWebLlmEngine({
          store,
          origin: self.location.origin,
          contextLength: message.settings.contextLength,
        }),
      },
    });
    handler = createRouter({ engine, store, version: message.version }).handle;
    for (const port of pending.splice(0)) servePort(port, handler, self.location.origin);
  } else if (message.type === 'connect' && event.ports[0]) {
    if (handler) servePort(event.ports[0], handler, self.location.origin);
    else pending.push(event.ports[0]);
  }
};
