import { describe, expect, it } from 'vitest';
import type { ModelRecord } from './model-record.js';
import { serveStoredFile } from './serve-stored-file.js';
import type { ModelBlobs, ModelStore } from './store.js';
import { parseStoredFilePath, storedFilePath, storedModelPath } from './stored-file-url.js';

function storeOf(record: ModelRecord, blobs: Blob[]): Pick<ModelStore, 'get' | 'open'> {
  return {
    get: (id) => Promise.resolve(id === record.id ? record : undefined),
    open: () => Promise.resolve({ model: blobs } satisfies ModelBlobs),
  };
}

const file = (name: string, size: number, complete = true) => ({
  fileId: name,
  name,
  size,
  chunkSize: 16,
  chunks: 1,
  complete,
});

const record: ModelRecord = {
  id: 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC',
  format: 'mlc',
  source: {
    kind: 'mlc',
    catalogId: 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC',
    modelUrl: 'https://huggingface.co/mlc-ai/Qwen2.5-0.5B-Instruct-q4f32_1-MLC/resolve/main/',
    modelLibUrl: 'https://example.com/lib.wasm',
    libFile: 'lib/Qwen2-0.5B-Instruct-q4f32_1-webgpu.wasm',
    requiredFeatures: [],
    vision: false,
  },
  files: [
    file('mlc-chat-config.json', 2),
    file('lib/Qwen2-0.5B-Instruct-q4f32_1-webgpu.wasm', 4),
    file('params_shard_0.bin', 3, false),
  ],
  gguf: { architecture: 'qwen2', parameterCount: 0, quantization: 'q4f32_1', fileKind: 'model' },
  sizeBytes: 9,
  createdAt: 0,
};
const blobs = [new Blob(['{}']), new Blob([new Uint8Array([0, 0x61, 0x73, 0x6d])]), new Blob([])];

describe('stored file paths', () => {
  it('round-trip ids and names with characters that need escaping', () => {
    const path = storedFilePath('a b/c', 'lib/x y.wasm');
    expect(path).toBe('/lmtab-store/a%20b%2Fc/resolve/main/lib/x%20y.wasm');
    expect(parseStoredFilePath(path)).toEqual({ id: 'a b/c', name: 'lib/x y.wasm' });
    expect(storedModelPath('m')).toBe('/lmtab-store/m/resolve/main/');
  });

  it('reject other paths', () => {
    expect(parseStoredFilePath('/lmtab-store/m/resolve/main/')).toBeUndefined();
    expect(parseStoredFilePath('/lmtab-store/m/config.json')).toBeUndefined();
    expect(parseStoredFilePath('/assets/main.js')).toBeUndefined();
    expect(parseStoredFilePath('/lmtab-store/%E0/resolve/main/x')).toBeUndefined();
  });
});

describe('serveStoredFile', () => {
  const store = storeOf(record, blobs);

  it('answers a stored file with its bytes, type and length, uncached', async () => {
    const response = await serveStoredFile(
      store,
      storedFilePath(record.id, 'lib/Qwen2-0.5B-Instruct-q4f32_1-webgpu.wasm'),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/wasm');
    expect(response.headers.get('content-length')).toBe('4');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect([...new Uint8Array(await response.arrayBuffer())]).toEqual([0, 0x61, 0x73, 0x6d]);
  });

  it('says which files a model has when the name is unknown', async () => {
    const response = await serveStoredFile(store, storedFilePath(record.id, 'tokenizer.json'));
    expect(response.status).toBe(404);
    expect(await response.text()).toBe(
      `No stored file "tokenizer.json" of model "${record.id}": it has mlc-chat-config.json, ` +
        'lib/Qwen2-0.5B-Instruct-q4f32_1-webgpu.wasm, params_shard_0.bin.',
    );
  });

  it('answers 404 for an unknown model and 409 for a file still downloading', async () => {
    const missing = await serveStoredFile(store, storedFilePath('nope', 'mlc-chat-config.json'));
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('no such model is stored');
    const partial = await serveStoredFile(store, storedFilePath(record.id, 'params_shard_0.bin'));
    expect(partial.status).toBe(409);
  });
});
