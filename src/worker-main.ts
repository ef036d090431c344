/// <reference lib="webworker" />
// The engine worker: owns the engine, the API router and a view of the model store. Tabs and the
// service worker reach it through ports carrying request frames.
import wasmUrl from '@wllama/wllama/esm/wasm/wllama.wasm?url';
import stockGlueCode from '@wllama/wllama/src/wasm/wllama.js?raw';
import { WllamaAbortError } from '@wllama/wllama/esm/index.js';
import { createRouter, pruneUploads } from './api/index.js';
import { servePort } from './bridge/index.js';
import { createEngineSwitch, createWebLlmEngine, createWllamaEngine } from './engine/index.js';
import { cpuBuildByDefault, lmtabCpuBuild } from './cpu-build-files.js';
import type { EngineSettings, WllamaEngine } from './engine/index.js';
import { createHubClient, hubHeadersFor, watchHubSettings } from './hub/index.js';
import type { HubSettings } from './hub/index.js';
import { createIdbModelStore, createIdbResponseStore, downloadModel } from './store/index.js';

declare const self: DedicatedWorkerGlobalScope;

/** Messages the page sends this worker. */
type WorkerMessage =
  | {
      type: 'init';
      settings: EngineSettings;
      hub: HubSettings;
      /** The tab's API settings (the upload limit of `/api/blobs`). */
      api?: { maxBlobBytes?: number };
      version: string;
      /** Whether to answer the test hooks on the `lmtab-test-hooks` channel (see `main.ts`). */
      testHooks?: boolean;
    }
  | { type: 'connect' };

// wllama 3.8.1's stream iterator rejects one more promise after an aborted generation's consumer
// has stopped reading; the abort itself is handled, so that late rejection is not an error (Stop in
// the Chat tab would otherwise log "Uncaught (in promise) AbortError: Operation aborted").
self.addEventListener('unhandledrejection', (event) => {
  if (event.reason instanceof WllamaAbortError) event.preventDefault();
});

/** The channel tests reach the engine worker on, when the page enables its test hooks. */
const testHookChannel = 'lmtab-test-hooks';

/**
 * Answers `{type: 'lose-gpu-device'}` on the test hook channel with
 * `{type: 'lose-gpu-device:done', result}` (see {@link WllamaEngine.loseGpuDevice}).
 */
function answerTestHooks(engine: WllamaEngine): void {
  const channel = new BroadcastChannel(testHookChannel);
  channel.onmessage = async (event: MessageEvent<{ type?: string }>) => {
    if (event.data?.type !== 'lose-gpu-device') return;
    const result = await engine.loseGpuDevice().catch((error: unknown) => String(error));
    channel.postMessage({ type: 'lose-gpu-device:done', result });
  };
}

let handler: ReturnType<typeof createRouter>['handle'] | undefined;
const pending: MessagePort[] = [];

self.onmessage = (event: MessageEvent<WorkerMessage>) => {
  const message = event.data;
  if (message.type === 'init') {
    const store = createIdbModelStore();
    // The engine host before this one may have died mid-upload: its chunks have no record. And
    // uploads no create used within their hour go, as Ollama prunes unused blobs at its start.
    void store.sweepOrphanChunks().catch(() => undefined);
    void pruneUploads(store).catch(() => undefined);
    const gguf = createWllamaEngine({
      store,
      wasmUrl,
      stockGlueCode,
      cpuBuild:
        cpuBuildByDefault && message.settings.cpuEngine !== 'wllama' ? lmtabCpuBuild : undefined,
      // The token routes of a model on wllama's stock build read its vocabulary with lmtab's build.
      tokenizerBuild: cpuBuildByDefault ? lmtabCpuBuild : undefined,
      ...message.settings,
    });
    if (message.testHooks === true) answerTestHooks(gguf);
    const engine = createEngineSwitch({
      store,
      engines: {
        gguf,
        // MLC models load from the store through the service worker's /lmtab-store/ URLs.
        mlc: createWebLlmEngine({
          store,
          origin: self.location.origin,
          contextLength: message.settings.contextLength,
        }),
      },
    });
    // The page's hub settings at start, then whatever any tab saves (they apply to the next pull).
    let hubSettings = message.hub;
    watchHubSettings((settings) => (hubSettings = settings));
    const hub = {
      client: () => createHubClient({ endpoint: hubSettings.endpoint, token: hubSettings.token }),
      download: (
        request: Parameters<typeof downloadModel>[0],
        { signal }: { signal?: AbortSignal },
      ) =>
        downloadModel(request, {
          store,
          signal,
          headers: (url) => hubHeadersFor(url, hubSettings),
        }),
    };
    handler = createRouter({
      engine,
      store,
      responses: createIdbResponseStore(),
      hub,
      maxBlobBytes: message.api?.maxBlobBytes,
      version: message.version,
    }).handle;
    for (const port of pending.splice(0)) servePort(port, handler, self.location.origin);
  } else if (message.type === 'connect' && event.ports[0]) {
    if (handler) servePort(event.ports[0], handler, self.location.origin);
    else pending.push(event.ports[0]);
  }
};
