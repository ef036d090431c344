// The bench page: lmtab's engine host (service worker path, relay path) with a direct line to the
// engine, and node-llama-wasm on the same files from IndexedDB. `npm run bench` drives it.
import { connectRelay, startEngineHost, type EngineHostHandle } from '../../src/bridge/index.js';
import { engineSocketPath } from '../../src/bridge/wire.js';
import { planBackend, probeCapabilities } from '../../src/engine/index.js';
import type {
  EngineInfo,
  GenerateEvent,
  GenerateRequest,
  LoadedModel,
} from '../../src/engine/index.js';
import { createIdbModelStore, isComplete } from '../../src/store/index.js';
import { runChatTurns } from '../chat-turns.js';
import { wireRequest, type GenerateSpec } from '../generate-spec.js';
import { StreamClock, timeSseStream, type StreamTiming } from '../stream-timing.js';
import type { BenchPageApi } from './bench-api.js';
import { createLlamaWasmRunner } from './llama-wasm-runner.js';
import type { FromWorker, ToWorker, WorkerCall } from './worker-protocol.js';
import packageJson from '../../package.json';

const now = () => performance.now();
const status = document.querySelector('#status')!;
const store = createIdbModelStore();

async function registerServiceWorker(): Promise<void> {
  const container = navigator.serviceWorker;
  await container.register('/sw.js', { type: 'module', scope: '/' });
  if (!container.controller) {
    await new Promise((resolve) =>
      container.addEventListener('controllerchange', resolve, { once: true }),
    );
  }
}

const worker = new Worker(new URL('./bench-worker.ts', import.meta.url), {
  type: 'module',
  name: 'lmtab-bench-engine',
});
const send = (message: ToWorker, transfer: Transferable[] = []) =>
  worker.postMessage(message, transfer);
let nextId = 1;
const pending = new Map<
  number,
  {
    resolve(value: unknown): void;
    reject(error: Error): void;
    onEvent?(event: GenerateEvent): void;
  }
>();
worker.onmessage = (event: MessageEvent<FromWorker>) => {
  const message = event.data;
  const waiter = pending.get(message.id);
  if (!waiter) return;
  if (message.type === 'event') return waiter.onEvent?.(message.event);
  pending.delete(message.id);
  if (message.type === 'error') waiter.reject(new Error(message.message));
  else waiter.resolve(message.value);
};

function call<T>(workerCall: WorkerCall, onEvent?: (event: GenerateEvent) => void): Promise<T> {
  const id = nextId++;
  return new Promise<T>((resolve, reject) => {
    pending.set(id, { resolve: resolve as (value: unknown) => void, reject, onEvent });
    send({ type: 'call', id, call: workerCall });
  });
}

function toRequest(spec: GenerateSpec): GenerateRequest {
  return {
    model: spec.model,
    input: spec.messages
      ? {
          kind: 'chat',
          messages: spec.messages.map((m) => ({
            role: m.role,
            content: [{ type: 'text', text: m.content }],
          })),
        }
      : { kind: 'prompt', prompt: spec.prompt ?? '' },
    sampling: { temperature: 0, maxTokens: spec.maxTokens, ignoreEos: true },
  };
}

async function direct(spec: GenerateSpec): Promise<StreamTiming> {
  const clock = new StreamClock(now(), now);
  let done: Extract<GenerateEvent, { type: 'done' }> | undefined;
  await call<null>({ op: 'generate', request: toRequest(spec) }, (event) => {
    if (event.type === 'token') clock.piece(event.text);
    else if (event.type === 'done') done = event;
  });
  if (!done) throw new Error('the engine ended without a done event');
  return clock.finish(done.usage, {
    promptMs: done.timings.promptMs,
    decodeMs: done.timings.decodeMs,
  });
}

async function viaFetch(spec: GenerateSpec): Promise<StreamTiming> {
  const { path, body } = wireRequest(spec);
  const clock = new StreamClock(now(), now);
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok || !response.body) {
    throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  }
  return timeSseStream(response.body, clock);
}

const llamaWasm = createLlamaWasmRunner(store);

const api: BenchPageApi = {
  async info() {
    const capabilities = await probeCapabilities();
    return {
      userAgent: navigator.userAgent,
      crossOriginIsolated: globalThis.crossOriginIsolated === true,
      cores: navigator.hardwareConcurrency,
      capabilities,
      plan: planBackend(capabilities, {}, 'wllama'),
      llamaWasm: await llamaWasm.support(),
    };
  },
  async hasModel(id, sizeBytes, notBefore) {
    const record = await store.get(id);
    return (
      !!record &&
      isComplete(record) &&
      record.sizeBytes === sizeBytes &&
      record.createdAt >= notBefore
    );
  },
  async importChosen(id, withProjector) {
    const file = document.querySelector<HTMLInputElement>('#model-file')?.files?.[0];
    const projector = withProjector
      ? document.querySelector<HTMLInputElement>('#projector-file')?.files?.[0]
      : undefined;
    if (!file) throw new Error('no model file chosen');
    for await (const progress of store.importFiles(file, { id, projector })) {
      if (progress.type === 'progress') status.textContent = `importing ${id}: ${progress.bytes}`;
    }
    status.textContent = `imported ${id}`;
  },
  configure: (config) => call<EngineInfo>({ op: 'configure', config }),
  async load(model) {
    await call<null>({ op: 'unload' });
    const started = now();
    const loaded = await call<LoadedModel>({ op: 'load', model });
    return { loadMs: now() - started, info: loaded.info };
  },
  unload: async () => {
    await call<null>({ op: 'unload' });
  },
  direct,
  directChat: (model, workload) =>
    runChatTurns(workload, (messages, maxTokens) => direct({ model, messages, maxTokens })),
  fetch: viaFetch,
  async fetchConcurrent(specs) {
    const started = now();
    const timings = await Promise.all(specs.map(viaFetch));
    return { wallMs: now() - started, timings };
  },
  connectRelay: () => joinRelay(),
  llamaWasmLoad: (model, config) => llamaWasm.load(model, config),
  llamaWasmGenerate: (spec) => llamaWasm.generate(spec),
  llamaWasmChat: (workload) =>
    runChatTurns(workload, (messages, maxTokens) =>
      llamaWasm.generate({ model: '', messages, maxTokens }),
    ),
  llamaWasmRelease: () => llamaWasm.release(),
  llamaWasmProbe: () => llamaWasm.probe(),
  llamaWasmProbeImages: (model) => llamaWasm.probeImages(model),
};

let host: EngineHostHandle | undefined;

/** Serves the relay that served this page, as the app's server panel does; false if it cannot. */
function joinRelay(timeoutMs = 15_000): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    connectRelay({
      url: `ws://${location.host}${engineSocketPath}`,
      connect: () => host?.connect(),
      // run-bench opens this page with the relay's secret in the fragment, as `lmtab serve` prints it.
      secret: () =>
        Promise.resolve(new URLSearchParams(location.hash.slice(1)).get('pair') ?? undefined),
      version: packageJson.version,
      onEvent: (event) => {
        if (event.type !== 'state' || event.state !== 'connected') return;
        clearTimeout(timer);
        resolve(true);
      },
    });
  });
}

async function main(): Promise<void> {
  await registerServiceWorker();
  await new Promise<void>((resolve) => {
    host = startEngineHost({
      startEngine: () => ({
        connect() {
          const channel = new MessageChannel();
          send({ type: 'connect' }, [channel.port1]);
          return channel.port2;
        },
      }),
      onHost: resolve,
    });
  });
  window.lmtabBench = api;
  status.textContent = 'ready';
  document.body.dataset.ready = '';
}

main().catch((error: unknown) => {
  status.textContent = `failed: ${String(error)}`;
});
