/// <reference lib="webworker" />
// The bench's engine worker: lmtab's own wllama engine and API router, as in the app's worker, plus
// a direct channel that calls the engine without the router, the service worker or the relay.
import wasmUrl from '@wllama/wllama/esm/wasm/wllama.wasm?url';
import stockGlueCode from '@wllama/wllama/src/wasm/wllama.js?raw';
import { WllamaAbortError } from '@wllama/wllama/esm/index.js';
import { createRouter } from '../../src/api/index.js';
import { servePort, type FrameHandler } from '../../src/bridge/index.js';
import { createWllamaEngine, type Engine } from '../../src/engine/index.js';
import { cpuBuildByDefault, lmtabCpuBuild } from '../../src/cpu-build-files.js';
import { createIdbModelStore } from '../../src/store/index.js';
import packageJson from '../../package.json';
import type { FromWorker, ToWorker, WorkerCall, WllamaBenchConfig } from './worker-protocol.js';

declare const self: DedicatedWorkerGlobalScope;

// As in the app's worker: wllama rejects one more promise after an aborted stream; not an error.
self.addEventListener('unhandledrejection', (event) => {
  if (event.reason instanceof WllamaAbortError) event.preventDefault();
});

const store = createIdbModelStore();
// The bench decides when models load and unload.
const keepAliveMs = 24 * 60 * 60_000;

function start({ build, ...config }: WllamaBenchConfig) {
  if (build === 'lmtab-cpu' && !lmtabCpuBuild) throw new Error('wasm/prebuilt/ has no CPU build');
  // Without a build named, the app's choice (transports and concurrent clients measure the app).
  const useCpuBuild = build === 'lmtab-cpu' || (build === undefined && cpuBuildByDefault);
  const cpuBuild = useCpuBuild ? lmtabCpuBuild : undefined;
  // With wllama's glue, models past lmtab's wasm32 build run on wllama's memory64 build, as in the app.
  const engine = createWllamaEngine({
    store,
    wasmUrl,
    stockGlueCode,
    cpuBuild,
    keepAliveMs,
    ...config,
  });
  const router = createRouter({ engine, store, version: packageJson.version });
  return { engine, router };
}

let current = start({ threads: navigator.hardwareConcurrency });
const handler: FrameHandler = (request, options) => current.router.handle(request, options);
const post = (message: FromWorker) => self.postMessage(message);

async function run(id: number, call: WorkerCall): Promise<void> {
  const engine: Engine = current.engine;
  switch (call.op) {
    case 'configure':
      await engine.unload();
      current = start(call.config);
      return post({ type: 'result', id, value: await current.engine.info() });
    case 'load':
      return post({ type: 'result', id, value: await engine.load(call.model) });
    case 'unload':
      await engine.unload();
      return post({ type: 'result', id, value: null });
    case 'generate':
      for await (const event of engine.generate(call.request)) post({ type: 'event', id, event });
      return post({ type: 'result', id, value: null });
  }
}

self.onmessage = (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  if (message.type === 'connect' && event.ports[0]) {
    servePort(event.ports[0], handler, self.location.origin);
  } else if (message.type === 'call') {
    run(message.id, message.call).catch((error: unknown) =>
      post({
        type: 'error',
        id: message.id,
        message: error instanceof Error ? error.message : String(error),
      }),
    );
  }
};
