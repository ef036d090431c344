import { resolveObjectURL } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { runInThisContext } from 'node:vm';
import { Worker as ThreadWorker } from 'node:worker_threads';

/**
 * What a browser gives wllama and lmtab's engine that Node 24 lacks, so that the app's own engine
 * code runs wllama's stock WebGPU build on Dawn's Node binding (npm `webgpu`) outside a browser:
 * a `Worker` on `worker_threads` that runs wllama's Blob-URL worker code as a browser worker would
 * (`self`, `postMessage`, `onmessage`, `navigator.gpu` from Dawn), `self` and `location`, `file:`
 * URLs for `fetch`, an absent origin-private file system (wllama's cache manager looks for one), and
 * `createImageBitmap` for PNG and JPEG headers (lmtab's image check decodes each image once).
 */

/** Options of {@link installNodeWebgpu}. */
export interface NodeWebgpuOptions {
  /** Path of Dawn's binding, the `webgpu` package's `index.js`; default `$LMTAB_DAWN`. */
  dawn?: string;
  /**
   * Dawn's instance flags, e.g. `enable-dawn-features=vulkan_enable_f16_on_nvidia`; default
   * `['backend=vulkan']`.
   */
  dawnFlags?: string[];
  /**
   * Adapter features to hide from the engine, e.g. `['shader-f16']` to show on lavapipe what
   * NVIDIA's Vulkan driver shows Dawn without `vulkan_enable_f16_on_nvidia`; default none.
   */
  hideFeatures?: string[];
}

/** The installed globals, and what the engine's workers said. */
export interface NodeWebgpu {
  /**
   * Every line the engine's workers logged since the install, oldest first: llama.cpp's own log
   * (`offloaded 5/5 layers to GPU`, `ggml_webgpu: adapter_info ...`), kept whole, unlike the
   * engine's 200-line ring.
   */
  log: string[];
  /** The WebGPU adapter Dawn offers this process, as the app's capability probe sees it. */
  adapter: { vendor: string; architecture: string; description: string; features: string[] };
  /** Puts back what was replaced; workers still running keep going. */
  uninstall(): void;
}

/** The fields of a worker message this module reads (wllama's worker protocol). */
interface WorkerMessage {
  verb?: string;
  args?: unknown[];
}

type Transfer = Transferable[] | { transfer?: Transferable[] } | undefined;

const transferList = (transfer: Transfer) =>
  (Array.isArray(transfer) ? transfer : (transfer?.transfer ?? [])) as never[];

/**
 * `(gpu, hidden) => gpu` whose adapters lack the `hidden` features (source text: it runs on this
 * thread and in each worker thread). Functions are bound to the real objects, which Dawn's native
 * methods require.
 */
const hideFeaturesSource = `(gpu, hidden) => {
  if (hidden.length === 0) return gpu;
  const bound = (target, key) => {
    const value = Reflect.get(target, key, target);
    return typeof value === 'function' ? value.bind(target) : value;
  };
  const adapter = (real) =>
    real &&
    new Proxy(real, {
      get: (target, key) =>
        key === 'features'
          ? new Set([...target.features].filter((name) => !hidden.includes(name)))
          : bound(target, key),
    });
  return new Proxy(gpu, {
    get: (target, key) =>
      key === 'requestAdapter'
        ? async (options) => adapter(await target.requestAdapter(options))
        : bound(target, key),
  });
}`;

/**
 * Runs in each worker thread before wllama's worker code: makes the thread look like a browser's
 * dedicated worker. `process.type = 'renderer'` is how emscripten's glue is told it is not in Node
 * (Electron's convention), so it fetches its wasm as a browser worker does.
 */
const workerBootstrap = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFile } = require('node:fs/promises');
const vm = require('node:vm');
const { code, dawn, dawnFlags, hideFeatures, href, filesOrigin } = workerData;
const hide = ${hideFeaturesSource};
process.type = 'renderer';
globalThis.self = globalThis;
globalThis.location = new URL(href);
globalThis.WorkerGlobalScope = class WorkerGlobalScope {};
globalThis.WorkerNavigator = navigator.constructor;
const nodeFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const url = String(input instanceof Request ? input.url : input);
  if (!url.startsWith(filesOrigin + '/')) return nodeFetch(input, init);
  const type = url.endsWith('.wasm') ? 'application/wasm' : 'text/javascript';
  const path = decodeURIComponent(new URL(url).pathname);
  return new Response(await readFile(path), { headers: { 'content-type': type } });
};
globalThis.postMessage = (data, transfer) =>
  parentPort.postMessage(data, Array.isArray(transfer) ? transfer : (transfer?.transfer ?? []));
let onmessage = null;
Object.defineProperty(globalThis, 'onmessage', { get: () => onmessage, set: (f) => (onmessage = f) });
(async () => {
  const { create, globals } = await import(dawn);
  for (const [name, value] of Object.entries(globals)) globalThis[name] ??= value;
  let gpu;
  // On the prototype, where wllama's noWebGPU switch (a CPU-only load) replaces it.
  Object.defineProperty(navigator.constructor.prototype, 'gpu', {
    configurable: true,
    get: () => (gpu ??= hide(create(dawnFlags), hideFeatures)),
  });
  parentPort.on('message', (data) => onmessage?.({ data }));
  vm.runInThisContext(code, { filename: 'wllama-worker.js' });
})().catch((error) => {
  parentPort.postMessage({ verb: 'signal.abort', args: ['exception', String(error), error?.stack ?? '', null] });
});
`;

/**
 * A browser `Worker` for a Blob URL of classic or module worker code, on a Node worker thread.
 * Messages posted before the thread starts are queued.
 */
class BlobUrlWorker {
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onerror: ((error: unknown) => void) | null = null;
  /** Listeners added as a browser's Worker takes them (lmtab's engine listens for `error`). */
  private listeners: { type: string; listener: (event: unknown) => void }[] = [];
  private thread: ThreadWorker | undefined;
  private queue: [unknown, Transfer][] = [];
  private terminated = false;

  constructor(url: string | URL, context: WorkerContext) {
    const blob = resolveObjectURL(String(url));
    if (!blob) throw new Error(`Worker: expected a Blob URL made in this thread, got ${url}`);
    void blob.text().then((code) => {
      if (this.terminated) return;
      const thread = new ThreadWorker(workerBootstrap, {
        eval: true,
        workerData: {
          code,
          dawn: context.dawnUrl,
          dawnFlags: context.dawnFlags,
          hideFeatures: context.hideFeatures,
          href: context.href,
          filesOrigin,
        },
      });
      thread.on('message', (data: WorkerMessage) => {
        if (data?.verb?.startsWith('console.')) {
          context.log.push(
            (data.args ?? []).map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '),
          );
        }
        this.onmessage?.({ data });
        this.dispatch('message', { data });
      });
      thread.on('error', (error) => {
        this.onerror?.(error);
        this.dispatch('error', { message: String(error?.message ?? error), error });
      });
      this.thread = thread;
      for (const [data, transfer] of this.queue) thread.postMessage(data, transferList(transfer));
      this.queue = [];
    });
  }

  addEventListener(type: string, listener: (event: unknown) => void): void {
    this.listeners.push({ type, listener });
  }

  private dispatch(type: string, event: unknown): void {
    for (const entry of this.listeners) if (entry.type === type) entry.listener(event);
  }

  postMessage(data: unknown, transfer?: Transfer): void {
    if (this.thread) this.thread.postMessage(data, transferList(transfer));
    else this.queue.push([data, transfer]);
  }

  terminate(): void {
    this.terminated = true;
    void this.thread?.terminate();
  }
}

/** The part of Dawn's Node binding this module uses. */
interface DawnBinding {
  create(flags: string[]): {
    requestAdapter(): Promise<{
      info?: { vendor?: string; architecture?: string; description?: string };
      features?: ReadonlySet<string>;
    } | null>;
  };
  /** WebGPU's constructors and constants (`GPUBufferUsage`, ...), which browsers make global. */
  globals: Record<string, unknown>;
}

interface WorkerContext {
  dawnUrl: string;
  dawnFlags: string[];
  hideFeatures: string[];
  href: string;
  log: string[];
}

/** Width and height from a PNG's IHDR or a JPEG's first frame header; undefined for others. */
export function imageSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length >= 24 && png.every((b, i) => bytes[i] === b)) {
    return { width: view.getUint32(16), height: view.getUint32(20) };
  }
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return undefined;
  for (let at = 2; at + 9 < bytes.length; at += 2 + view.getUint16(at + 2)) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1]!;
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return { width: view.getUint16(at + 7), height: view.getUint16(at + 5) };
    }
  }
  return undefined;
}

async function createImageBitmap(blob: Blob) {
  const size = imageSize(new Uint8Array(await blob.arrayBuffer()));
  if (!size) throw new DOMException('The source image could not be decoded.', 'InvalidStateError');
  return { ...size, close: () => undefined };
}

/**
 * The stand-in origin under which local files are fetched (a reserved `.invalid` name: nothing
 * listens there). Not `file:` URLs: emscripten's glue reads those with XMLHttpRequest.
 */
const filesOrigin = 'https://files.invalid';

/** The URL under which wllama's workers and this thread fetch a local file (see {@link installNodeWebgpu}). */
export function localFileUrl(path: string): string {
  return filesOrigin + pathToFileURL(path).pathname;
}

/** Answers {@link localFileUrl}s from disk; other URLs go to Node's fetch. */
function localFetch(nodeFetch: typeof fetch): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith(filesOrigin + '/')) return nodeFetch(input, init);
    const type = url.endsWith('.wasm') ? 'application/wasm' : 'text/javascript';
    const path = decodeURIComponent(new URL(url).pathname);
    return new Response(await readFile(path), { headers: { 'content-type': type } });
  };
}

/**
 * Installs the browser globals wllama and lmtab's engine need on this thread (see the module's
 * comment); wllama's workers get Dawn's `navigator.gpu` with `dawnFlags`.
 */
export async function installNodeWebgpu(options: NodeWebgpuOptions = {}): Promise<NodeWebgpu> {
  const dawn = options.dawn ?? process.env.LMTAB_DAWN;
  if (!dawn) {
    throw new Error(
      "Dawn's Node binding: expected options.dawn or LMTAB_DAWN to name the webgpu package's index.js (tests/support/webgpu/ensure-webgpu.mjs installs it), got neither",
    );
  }
  const dawnFlags = options.dawnFlags ?? ['backend=vulkan'];
  const dawnUrl = pathToFileURL(dawn).href;
  const { create, globals } = (await import(dawnUrl)) as DawnBinding;
  const hideFeatures = options.hideFeatures ?? [];
  const hide = runInThisContext(hideFeaturesSource) as <T>(gpu: T, hidden: string[]) => T;
  const gpu = hide(create(dawnFlags), hideFeatures);
  const target = globalThis as Record<string, unknown>;
  const navigatorProto = Object.getPrototypeOf(navigator) as object;
  const saved = new Map<string, PropertyDescriptor | undefined>(
    ['self', 'location', 'Worker', 'fetch', 'createImageBitmap', ...Object.keys(globals)].map(
      (name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)],
    ),
  );
  const savedGpu = Object.getOwnPropertyDescriptor(navigatorProto, 'gpu');
  const savedStorage = Object.getOwnPropertyDescriptor(navigatorProto, 'storage');
  const href = localFileUrl(process.cwd() + '/');
  const context: WorkerContext = { dawnUrl, dawnFlags, hideFeatures, href, log: [] };

  for (const [name, value] of Object.entries(globals)) target[name] ??= value;
  target.self = globalThis;
  target.location = new URL(href);
  target.fetch = localFetch(globalThis.fetch);
  target.createImageBitmap = createImageBitmap;
  target.Worker = class extends BlobUrlWorker {
    constructor(url: string | URL) {
      super(url, context);
    }
  };
  Object.defineProperty(navigatorProto, 'gpu', { configurable: true, get: () => gpu });
  Object.defineProperty(navigatorProto, 'storage', {
    configurable: true,
    get: () => ({
      getDirectory: () =>
        Promise.reject(new DOMException('No origin private file system in Node', 'SecurityError')),
    }),
  });

  const adapter = await gpu.requestAdapter();
  const info = adapter?.info;
  return {
    log: context.log,
    adapter: {
      vendor: info?.vendor ?? '',
      architecture: info?.architecture ?? '',
      description: info?.description ?? '',
      features: [...(adapter?.features ?? [])],
    },
    uninstall() {
      for (const [name, descriptor] of saved) {
        if (descriptor) Object.defineProperty(globalThis, name, descriptor);
        else delete target[name];
      }
      for (const [name, descriptor] of [
        ['gpu', savedGpu],
        ['storage', savedStorage],
      ] as const) {
        if (descriptor) Object.defineProperty(navigatorProto, name, descriptor);
        else delete (navigatorProto as Record<string, unknown>)[name];
      }
    },
  };
}
