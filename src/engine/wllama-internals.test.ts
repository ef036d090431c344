import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Wllama } from '@wllama/wllama/esm/index.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  failOnWorkerError,
  modelReadWatch,
  onEachProxy,
  workerFailurePrologue,
} from './wllama-internals.js';

/** A stand-in for wllama's worker proxy: what the hooks touch of it. */
class FakeProxy {
  worker?: EventTarget;
  aborted: string[] = [];
  abort(text: string): void {
    this.aborted.push(text);
  }
  async getModuleCode(): Promise<string> {
    return 'var Module = {};';
  }
}

/**
 * A Blob whose first `stalls` piece reads never finish, as Chromium's blob reads sometimes did not
 * in wllama's worker; counts the reads.
 */
class StallingBlob extends Blob {
  reads = 0;
  stalls = 0;
  override slice(start?: number, end?: number): Blob {
    const piece = super.slice(start, end);
    this.reads += 1;
    if (this.reads > this.stalls) return piece;
    return Object.assign(piece, { arrayBuffer: () => new Promise<ArrayBuffer>(() => undefined) });
  }
}

/** Runs the prologue in a stand-in for a worker's global scope named `name`. */
function runPrologue(name: string) {
  const posted: unknown[] = [];
  const scope = Object.assign(new EventTarget(), {
    name,
    postMessage: (message: unknown) => posted.push(message),
    Blob: class extends StallingBlob {},
    ReadableStream,
  });
  new Function('globalThis', workerFailurePrologue)(scope);
  const reject = (reason: unknown) =>
    scope.dispatchEvent(Object.assign(new Event('unhandledrejection'), { reason }));
  return { posted, reject, Blob: scope.Blob };
}

/** Reads `blob` as the CPU build's glue does: a BYOB reader into one reused scratch buffer. */
async function readAsGlue(blob: Blob, scratchBytes: number): Promise<number[]> {
  let scratch = new ArrayBuffer(scratchBytes);
  const reader = blob.stream().getReader({ mode: 'byob' });
  const bytes: number[] = [];
  for (;;) {
    const step = await reader.read(new Uint8Array(scratch));
    if (step.value) scratch = step.value.buffer as ArrayBuffer;
    if (step.done) break;
    bytes.push(...step.value);
  }
  reader.releaseLock();
  return bytes;
}

afterEach(() => {
  vi.useRealTimers();
});

/** An instance as wllama 3.13's constructor leaves it for these hooks: a `proxy` of null. */
function fakeWllama(): Wllama {
  return { proxy: null } as unknown as Wllama;
}

/** An uncaught error as a Worker object reports it (Node has no ErrorEvent). */
function errorEvent(message: string): Event {
  return Object.assign(new Event('error'), { message, filename: 'blob:worker', lineno: 7 });
}

describe('onEachProxy', () => {
  it('sees each proxy wllama sets, not the null of its exit, and reads back what was set', () => {
    const wllama = fakeWllama();
    const seen: unknown[] = [];
    onEachProxy(wllama, (proxy) => seen.push(proxy));
    const holder = wllama as unknown as { proxy: unknown };
    expect(holder.proxy).toBeNull();
    const first = new FakeProxy();
    holder.proxy = first;
    holder.proxy = null;
    const second = new FakeProxy();
    holder.proxy = second;
    expect(seen).toEqual([first, second]);
    expect(holder.proxy).toBe(second);
  });

  it('composes: a hook added after another runs after it, and both stay in force', () => {
    const wllama = fakeWllama();
    const order: string[] = [];
    onEachProxy(wllama, () => order.push('first'));
    onEachProxy(wllama, () => order.push('second'));
    const proxy = new FakeProxy();
    (wllama as unknown as { proxy: unknown }).proxy = proxy;
    expect(order).toEqual(['first', 'second']);
    expect((wllama as unknown as { proxy: unknown }).proxy).toBe(proxy);
  });
});

describe('failOnWorkerError', () => {
  it("fails the proxy's pending calls, naming the error, when its worker stops on one", () => {
    const wllama = fakeWllama();
    failOnWorkerError(wllama);
    const proxy = new FakeProxy();
    (wllama as unknown as { proxy: unknown }).proxy = proxy;
    const worker = new EventTarget();
    proxy.worker = worker;
    expect(proxy.worker).toBe(worker);
    worker.dispatchEvent(errorEvent('RangeError: WebAssembly.Memory(): could not allocate memory'));
    expect(proxy.aborted).toEqual([
      "wllama's worker stopped on an uncaught error: RangeError: WebAssembly.Memory(): could not allocate memory (blob:worker:7)",
    ]);
  });

  it("runs the prologue before the worker's own code", async () => {
    const wllama = fakeWllama();
    failOnWorkerError(wllama);
    const proxy = new FakeProxy();
    (wllama as unknown as { proxy: unknown }).proxy = proxy;
    expect(await proxy.getModuleCode()).toBe(`${workerFailurePrologue}var Module = {};`);
    // wllama renames the first `var Module` of the code it is given: it must stay the glue's.
    expect(workerFailurePrologue).not.toContain('var Module');
  });

  it("the prologue reports a rejection nobody caught as the glue's abort signal", () => {
    const { posted, reject } = runPrologue('');
    reject(new TypeError('Failed to read the Blob'));
    expect(posted).toEqual([
      {
        verb: 'signal.abort',
        args: [
          'exception',
          "wllama's worker stopped on a rejected promise: TypeError: Failed to read the Blob",
          expect.stringContaining('TypeError'),
          null,
        ],
      },
    ]);
  });

  it("the prologue stays out of the glue's pthreads, which report to the worker, not its host", () => {
    const { posted, reject } = runPrologue('em-pthread-1');
    reject(new Error('in a pthread'));
    expect(posted).toEqual([]);
  });

  it("the prologue's Blob stream gives a BYOB reader every byte, in pieces no larger than its view", async () => {
    const { Blob: WorkerBlob } = runPrologue('');
    const data = Array.from({ length: 1000 }, (_, i) => i % 251);
    const blob = new WorkerBlob([new Uint8Array(data)]);
    expect(await readAsGlue(blob, 64)).toEqual(data);
    expect(blob.reads).toBe(Math.ceil(1000 / 64));
    expect(await new Response(new WorkerBlob([new Uint8Array(data)]).stream()).bytes()).toEqual(
      new Uint8Array(data),
    );
  });

  it('the prologue reads a piece again when a read has not finished in time, and fails after the last try', async () => {
    vi.useFakeTimers();
    const { Blob: WorkerBlob } = runPrologue('');
    const once = new WorkerBlob([new Uint8Array([1, 2, 3])]);
    once.stalls = 1;
    const read = readAsGlue(once, 16);
    await vi.advanceTimersByTimeAsync(modelReadWatch.timeoutMs);
    expect(await read).toEqual([1, 2, 3]);
    const never = new WorkerBlob([new Uint8Array([1, 2, 3])]);
    never.stalls = modelReadWatch.tries;
    const failed = readAsGlue(never, 16).catch((error: Error) => error.message);
    await vi.advanceTimersByTimeAsync(modelReadWatch.timeoutMs * modelReadWatch.tries);
    expect(await failed).toBe('a read of 3 bytes of the model did not finish in 30 s, 3 times');
  });

  it('leaves a proxy whose worker reports nothing alone', () => {
    const wllama = fakeWllama();
    failOnWorkerError(wllama);
    const proxy = new FakeProxy();
    (wllama as unknown as { proxy: unknown }).proxy = proxy;
    proxy.worker = new EventTarget();
    proxy.worker.dispatchEvent(new Event('message'));
    expect(proxy.aborted).toEqual([]);
  });
});

describe("wllama 3.13.0's internals these hooks rely on", () => {
  const source = readFileSync(
    createRequire(import.meta.url).resolve('@wllama/wllama/esm/index.js'),
    'utf8',
  );

  it('starts each instance with a null `proxy` of its own, set to a new worker proxy at each load', () => {
    expect(source).toContain('__publicField(this, "proxy", null);');
    expect(source).toContain('this.proxy = new ProxyToWorker(');
    expect(source).toContain('this.proxy = null;');
  });

  it("only logs its worker's uncaught errors, and its proxy has abort(text, stack) to fail every call", () => {
    expect(source).toContain('this.worker.onerror = this.logger.error;');
    expect(source).toContain('let moduleCode = JSPI_STUB + (yield this.getModuleCode());');
    expect(source).toContain('} else if (verb === "signal.abort") {');
    expect(source).toMatch(/\n {2}abort\(text, stack\) \{\n {4}this\.rejectAll\(/);
  });
});
