import type { Wllama } from '@wllama/wllama/esm/index.js';
import { WllamaError } from '@wllama/wllama/esm/index.js';

/**
 * The part of wllama's private worker proxy lmtab drives: its glue actions, by name, with a message
 * wllama's JavaScript serializes. wllama's public calls do not cover embeddings in slots, raw
 * completions that survive partial characters, or lmtab's own glue actions.
 */
export interface WllamaProxy {
  wllamaAction(name: string, body: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** A loaded instance's worker proxy; before `loadModel` there is none, and this throws as wllama does. */
export function wllamaProxy(wllama: Wllama): WllamaProxy {
  const proxy = (wllama as unknown as { proxy: WllamaProxy | null }).proxy;
  if (proxy === null) throw new WllamaError('loadModel() is not yet called', 'model_not_loaded');
  return proxy;
}

/**
 * Calls `each` with every worker proxy `wllama` makes: wllama 3.13 sets its private `proxy` to a
 * new one at each load (then creates its worker) and to null at exit. Hooks compose: one added
 * after another runs after it, and both stay in force.
 */
export function onEachProxy<Proxy extends object>(
  wllama: Wllama,
  each: (proxy: Proxy) => void,
): void {
  const earlier = Object.getOwnPropertyDescriptor(wllama, 'proxy');
  let own = (earlier?.get ? undefined : earlier?.value) as Proxy | null | undefined;
  Object.defineProperty(wllama, 'proxy', {
    configurable: true,
    get: () => (earlier?.get ? earlier.get.call(wllama) : own),
    set(value: Proxy | null) {
      if (earlier?.set) earlier.set.call(wllama, value);
      else own = value;
      if (value !== null && value !== undefined) each(value);
    },
  });
}

/** What {@link failOnWorkerError} touches of wllama's worker proxy. */
interface WorkerProxy {
  worker?: Worker;
  abort(text: string, stack: string): void;
  getModuleCode(): Promise<string>;
}

/** How long one piece of a model read may take before it is read again, and how often. */
export const modelReadWatch = { pieceBytes: 16 << 20, timeoutMs: 30_000, tries: 3 } as const;

/**
 * Code run first in wllama's worker (not in its pthreads), for two faults seen there:
 *
 * - A promise rejected with nobody to catch it (a failed read inside the glue's asynchronous file
 *   read, which Asyncify leaves suspended) is reported to the worker's host the way the glue
 *   reports an abort (`signal.abort`), which fails every call waiting on it.
 * - `Blob.stream()` is a byte stream that reads the Blob in pieces of 16 MiB with `arrayBuffer()`,
 *   one piece ahead, each read again when it has not finished in 30 s (three tries, then the read
 *   fails). lmtab's CPU build reads the model's Blob slices through a BYOB reader of that stream
 *   (wasm/cpp-patches.mjs); on Chromium 156, Chromium's own blob stream of a stored model sometimes
 *   never answered one such read (2,393 of 2,394 in a 2.73 GB load on a loaded machine): the load
 *   waited forever, and a request through the service worker ended five minutes later in "Failed
 *   to fetch". The glue's read is where this belongs; it moves there when the wasm is next built
 *   (this prologue only overrides what that read calls).
 *
 * Plain ES2020, with no `var Module` in it (wllama renames the first one it finds in the code it is
 * given).
 */
export const workerFailurePrologue = `;(function (scope) {
  if (scope.__lmtabFailLoud || (scope.name && scope.name.indexOf('em-pthread') === 0)) return;
  scope.__lmtabFailLoud = true;
  if (typeof scope.addEventListener === 'function') scope.addEventListener('unhandledrejection', function (event) {
    var reason = event.reason;
    var text = reason && reason.message ? reason.name + ': ' + reason.message : String(reason);
    scope.postMessage({
      verb: 'signal.abort',
      args: ['exception', "wllama's worker stopped on a rejected promise: " + text, (reason && reason.stack) || '', null],
    });
  });
  var watch = ${JSON.stringify(modelReadWatch)};
  function readPiece(blob, start, end, tries) {
    return new Promise(function (resolve, reject) {
      var settled = false;
      // The first of the read and the timer settles the piece; the other is ignored.
      function first(settle) {
        return function (value) {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          settle(value);
        };
      }
      var timer = setTimeout(first(function () {
        if (tries > 1) resolve(readPiece(blob, start, end, tries - 1));
        else reject(new Error('a read of ' + (end - start) + ' bytes of the model did not finish in ' + watch.timeoutMs / 1000 + ' s, ' + watch.tries + ' times'));
      }), watch.timeoutMs);
      blob.slice(start, end).arrayBuffer().then(first(resolve), first(reject));
    });
  }
  scope.Blob.prototype.stream = function () {
    var blob = this;
    var at = 0;
    // The next piece, read while the last one is copied (a read nobody takes fails no one).
    var ahead = null;
    function piece(start, end) {
      if (ahead && ahead.start === start && ahead.end === end) return ahead.read;
      return readPiece(blob, start, end, watch.tries);
    }
    return new scope.ReadableStream({
      type: 'bytes',
      pull: function (controller) {
        var request = controller.byobRequest;
        if (at >= blob.size) {
          controller.close();
          if (request) request.respond(0);
          return;
        }
        var want = request ? Math.min(request.view.byteLength, watch.pieceBytes) : watch.pieceBytes;
        var end = Math.min(blob.size, at + want);
        return piece(at, end).then(function (buffer) {
          at = end;
          ahead = null;
          if (at < blob.size) {
            var next = Math.min(blob.size, at + want);
            ahead = { start: at, end: next, read: readPiece(blob, at, next, watch.tries) };
            ahead.read.catch(function () {});
          }
          var bytes = new Uint8Array(buffer);
          var pending = controller.byobRequest;
          if (!pending) return controller.enqueue(bytes);
          new Uint8Array(pending.view.buffer, pending.view.byteOffset, bytes.byteLength).set(bytes);
          pending.respond(bytes.byteLength);
        });
      },
    });
  };
})(globalThis);
`;

/**
 * Makes every worker proxy of `wllama` fail its pending calls when its worker stops on an uncaught
 * error or a promise rejected with nobody to catch it (a memory the browser would not reserve, a
 * read of the model that failed), and read the model's Blobs in watched pieces
 * ({@link workerFailurePrologue}): wllama 3.13 only passes the first to its logger
 * (`worker.onerror`) and never hears of the second, so the load or request waiting on the worker
 * waited forever, and a request through the service worker ended five minutes later in "Failed to
 * fetch" with no word of why.
 */
export function failOnWorkerError(wllama: Wllama): void {
  onEachProxy<WorkerProxy>(wllama, (proxy) => {
    const moduleCode = proxy.getModuleCode.bind(proxy);
    proxy.getModuleCode = async () => workerFailurePrologue + (await moduleCode());
    let worker = proxy.worker;
    Object.defineProperty(proxy, 'worker', {
      configurable: true,
      enumerable: true,
      get: () => worker,
      set(value: Worker | undefined) {
        worker = value;
        if (typeof value?.addEventListener !== 'function') return;
        value.addEventListener('error', (event) => {
          const where = event.filename ? ` (${event.filename}:${event.lineno})` : '';
          proxy.abort(
            `wllama's worker stopped on an uncaught error: ${event.message || 'no message'}${where}`,
            '',
          );
        });
      },
    });
  });
}
