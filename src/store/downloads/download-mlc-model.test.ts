import { describe, expect, it } from 'vitest';
import { LmtabError } from '../../errors/index.js';
import { downloadMlcModel, mlcModelBaseUrl, type MlcModelSpec } from './download-mlc-model.js';
import type { ModelRecord, StoredFile } from '../model-record.js';
import type { StoreProgress } from '../store.js';

const hub = 'https://hub.test/mlc-ai/Tiny-q4f32_1-MLC/resolve/main/';
const lib = 'https://libs.test/v0_2_86/Tiny-q4f32_1-webgpu.wasm';

const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

function artifacts(): Map<string, Uint8Array> {
  return new Map([
    [
      `${hub}mlc-chat-config.json`,
      json({
        model_type: 'qwen2',
        quantization: 'q4f32_1',
        context_window_size: 32768,
        model_config: { hidden_size: 64, num_hidden_layers: 2 },
        tokenizer_files: ['tokenizer.json', 'vocab.json'],
      }),
    ],
    [
      `${hub}tensor-cache.json`,
      json({
        metadata: { ParamSize: 1234 },
        records: [
          { dataPath: 'params_shard_0.bin', nbytes: 10 },
          { dataPath: 'params_shard_1.bin', nbytes: 7 },
        ],
      }),
    ],
    [`${hub}tokenizer.json`, json({ model: {} })],
    [`${hub}params_shard_0.bin`, bytes(10, 1)],
    [`${hub}params_shard_1.bin`, bytes(7, 2)],
    [lib, new TextEncoder().encode('not really wasm')],
  ]);
}

const spec: MlcModelSpec = {
  catalogId: 'Tiny-q4f32_1-MLC',
  modelUrl: 'https://hub.test/mlc-ai/Tiny-q4f32_1-MLC',
  modelLibUrl: lib,
  requiredFeatures: [],
  vision: false,
  overrides: { context_window_size: 4096 },
};

/** A store double keeping records and chunks in memory. */
function memoryStore() {
  const records = new Map<string, ModelRecord>();
  const chunks = new Map<string, Uint8Array>();
  return {
    records,
    chunks,
    get: (id: string) => Promise.resolve(records.get(id)),
    putRecord: (record: ModelRecord) => {
      records.set(record.id, structuredClone(record));
      return Promise.resolve();
    },
    async writeChunk(file: StoredFile, index: number, data: Blob) {
      chunks.set(`${file.fileId}:${index}`, new Uint8Array(await data.arrayBuffer()));
    },
    read(file: StoredFile): Uint8Array {
      const parts = Array.from({ length: file.chunks }, (_, i) =>
        chunks.get(`${file.fileId}:${i}`)!,
      );
      return new Uint8Array(parts.flatMap((p) => [...p]));
    },
  };
}

function fakeFetch(files: Map<string, Uint8Array>, log: string[] = []): typeof fetch {
  return (input, init) => {
    const url = String(input);
    log.push(url);
    expect(init?.cache).toBe('no-store');
    const body = files.get(url);
    return Promise.resolve(
      body
        ? new Response(body.slice())
        : new Response('Not found', { status: 404, statusText: 'Not Found' }),
    );
  };
}

async function run(
  store: ReturnType<typeof memoryStore>,
  fetcher: typeof fetch,
): Promise<StoreProgress[]> {
  const steps: StoreProgress[] = [];
  for await (const step of downloadMlcModel(store, spec, {
    fetch: fetcher,
    chunkSize: 4,
    clock: () => 42,
  })) {
    steps.push(step);
  }
  return steps;
}

describe('downloadMlcModel', () => {
  it('stores every artifact web-llm loads, in chunks, with a record describing the model', async () => {
    const store = memoryStore();
    const files = artifacts();
    const steps = await run(store, fakeFetch(files));
    const record = store.records.get('Tiny-q4f32_1-MLC')!;
    expect(record.files.map((f) => [f.name, f.size, f.complete])).toEqual([
      ['mlc-chat-config.json', files.get(`${hub}mlc-chat-config.json`)!.length, true],
      ['tensor-cache.json', files.get(`${hub}tensor-cache.json`)!.length, true],
      ['tokenizer.json', files.get(`${hub}tokenizer.json`)!.length, true],
      ['params_shard_0.bin', 10, true],
      ['params_shard_1.bin', 7, true],
      ['lib/Tiny-q4f32_1-webgpu.wasm', 15, true],
    ]);
    expect(store.read(record.files[3])).toEqual(bytes(10, 1));
    expect(record.files[3].chunks).toBe(3);
    expect(new TextDecoder().decode(store.read(record.files[5]))).toBe('not really wasm');
    expect(record).toMatchObject({
      format: 'mlc',
      source: {
        kind: 'mlc',
        catalogId: 'Tiny-q4f32_1-MLC',
        libFile: 'lib/Tiny-q4f32_1-webgpu.wasm',
        overrides: { context_window_size: 4096 },
      },
      gguf: {
        architecture: 'qwen2',
        name: 'Tiny-q4f32_1-MLC',
        parameterCount: 1234,
        contextLength: 4096,
        embeddingLength: 64,
        blockCount: 2,
        quantization: 'q4f32_1',
        fileKind: 'model',
      },
      createdAt: 42,
    });
    expect(steps.filter((s) => s.type === 'progress' && s.file === 'params_shard_0.bin')).toEqual([
      { type: 'progress', file: 'params_shard_0.bin', bytes: 10, total: 10 },
    ]);
    expect(steps.at(-1)).toEqual({ type: 'done', record });
  });

  it('resumes a cut download with the first unfinished file', async () => {
    const store = memoryStore();
    const files = artifacts();
    files.delete(`${hub}params_shard_1.bin`);
    const error = await run(store, fakeFetch(files)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LmtabError);
    expect(error).toMatchObject({
      code: 'download_failed',
      message: `Downloading ${hub}params_shard_1.bin failed: expected status 200, got 404 Not Found`,
    });
    const partial = store.records.get('Tiny-q4f32_1-MLC')!;
    expect(partial.files.map((f) => f.complete)).toEqual([true, true, true, true, false, false]);

    const log: string[] = [];
    await run(store, fakeFetch(artifacts(), log));
    expect(log).toEqual([
      `${hub}mlc-chat-config.json`,
      `${hub}tensor-cache.json`,
      `${hub}params_shard_1.bin`,
      lib,
    ]);
    const record = store.records.get('Tiny-q4f32_1-MLC')!;
    expect(record.files.every((f) => f.complete)).toBe(true);
    expect(record.files[3].fileId).toBe(partial.files[3].fileId);
  });

  it('refuses a shard whose size differs from tensor-cache.json', async () => {
    const files = artifacts();
    files.set(`${hub}params_shard_0.bin`, bytes(9, 1));
    const error = await run(memoryStore(), fakeFetch(files)).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'download_failed',
      message: `Downloading ${hub}params_shard_0.bin failed: expected 10 bytes (tensor-cache.json), got 9`,
    });
  });

  it('resolves model URLs as web-llm does', () => {
    expect(mlcModelBaseUrl('https://huggingface.co/mlc-ai/X')).toBe(
      'https://huggingface.co/mlc-ai/X/resolve/main/',
    );
    expect(mlcModelBaseUrl('https://huggingface.co/mlc-ai/X/resolve/v2/')).toBe(
      'https://huggingface.co/mlc-ai/X/resolve/v2/',
    );
  });
});
