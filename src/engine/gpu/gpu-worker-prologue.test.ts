import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { gpuWorkerPrologue, loseDeviceMessage } from './gpu-worker-prologue.js';

/** A worker scope with fake WebGPU classes, as wllama's worker has real ones. */
function workerScope() {
  const posted: { verb: string; args: string[] }[] = [];
  const asked: unknown[] = [];
  const listeners: ((event: { data: unknown }) => void)[] = [];
  class FakeDevice {
    private resolveLost!: (info: { reason: string; message: string }) => void;
    readonly lost = new Promise<{ reason: string; message: string }>(
      (resolve) => (this.resolveLost = resolve),
    );
    destroy() {
      this.resolveLost({ reason: 'destroyed', message: 'Device was destroyed.' });
    }
    loseFromDriver() {
      this.resolveLost({ reason: 'unknown', message: 'the GPU process crashed' });
    }
  }
  class GPUAdapter {
    readonly info = { vendor: 'nvidia', architecture: 'ampere', device: '', description: 'A10G' };
    async requestDevice() {
      return new FakeDevice();
    }
  }
  class GPU {
    async requestAdapter(options: unknown) {
      asked.push(options);
      return new GPUAdapter();
    }
  }
  const scope: Record<string, unknown> = {
    GPU,
    GPUAdapter,
    postMessage: (message: { verb: string; args: string[] }) => posted.push(message),
    addEventListener: (type: string, listener: (event: { data: unknown }) => void) => {
      if (type === 'message') listeners.push(listener);
    },
    Object,
    JSON,
    Set,
    WeakSet,
  };
  scope.globalThis = scope;
  runInNewContext(gpuWorkerPrologue, scope);
  const send = (data: unknown) => listeners.forEach((listener) => listener({ data }));
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
  return { gpu: new GPU(), posted, asked, send, settle, lines: () => posted.map((p) => p.args[0]) };
}

describe("the GPU watch in wllama's worker", () => {
  it('asks for the high-performance adapter unless told otherwise, and logs which it got', async () => {
    const worker = workerScope();
    // What emscripten's glue passes for llama.cpp's empty RequestAdapterOptions.
    await worker.gpu.requestAdapter({ powerPreference: undefined, forceFallbackAdapter: false });
    await worker.gpu.requestAdapter({ powerPreference: 'low-power' });
    expect(worker.asked).toEqual([
      { powerPreference: 'high-performance', forceFallbackAdapter: false },
      { powerPreference: 'low-power' },
    ]);
    expect(worker.posted[0]).toEqual({
      verb: 'console.warn',
      args: [
        'lmtab-gpu: adapter {"powerPreference":"high-performance","vendor":"nvidia","architecture":"ampere","device":"","description":"A10G"}',
      ],
    });
  });

  it("logs a device's loss, not its destruction at unload", async () => {
    const worker = workerScope();
    const adapter = (await worker.gpu.requestAdapter({})) as unknown as {
      requestDevice(): Promise<{ destroy(): void; loseFromDriver(): void }>;
    };
    const unloaded = await adapter.requestDevice();
    const crashed = await adapter.requestDevice();
    unloaded.destroy();
    crashed.loseFromDriver();
    await worker.settle();
    expect(worker.lines().slice(1)).toEqual([
      'lmtab-gpu: device lost (unknown): the GPU process crashed',
    ]);
  });

  it('destroys every device on the test hook message and says so', async () => {
    const worker = workerScope();
    const adapter = (await worker.gpu.requestAdapter({})) as unknown as {
      requestDevice(): Promise<unknown>;
    };
    await adapter.requestDevice();
    worker.send({ verb: 'wllama.action', callbackId: 3 });
    worker.send(loseDeviceMessage);
    await worker.settle();
    expect(worker.lines().slice(1)).toEqual([
      'lmtab-gpu: test hook: destroying 1 GPU device(s)',
      'lmtab-gpu: device lost (destroyed by the lmtab test hook): Device was destroyed.',
    ]);
  });

  it("parses where wllama puts it: ahead of its stock glue, inside the worker's init function", () => {
    expect(gpuWorkerPrologue).not.toContain('var Module');
    const glue = readFileSync('node_modules/@wllama/wllama/src/wasm/wllama.js', 'utf8');
    // wllama's moduleInit: the first `var Module` renamed, the code wrapped in wModuleInit.
    const code = (gpuWorkerPrologue + glue).replace('var Module', 'var ___Module');
    expect(() => new Function(`function wModuleInit() { ${code}; return Module; }`)).not.toThrow();
  });
});
