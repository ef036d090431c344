import { describe, expect, it } from 'vitest';
import { LmtabError } from '../../errors/index.js';
import { createIdbModelStore, type Keyval } from './idb-model-store.js';
import type { ModelRecord, StoredFile } from '../model-record.js';
import * as memoryKeyval from '../testing/memory-idb-keyval.js';

/** The memory backend, refusing writes to `refuse` (a store name's end) as a full quota does. */
function fullQuota(refuse: 'records' | 'chunks'): Keyval<memoryKeyval.MemoryUseStore> {
  return {
    ...memoryKeyval,
    set: (key, value, store) =>
      store.name.endsWith(refuse)
        ? Promise.reject(new DOMException('', 'QuotaExceededError'))
        : memoryKeyval.set(key, value, store),
  };
}

const file: StoredFile = {
  fileId: 'f1',
  name: 'LFM2-350M-Q4_K_M.gguf',
  size: 396_320,
  chunkSize: 65_536,
  chunks: 2,
  complete: false,
};
const record = {
  id: 'hf.co/LiquidAI/LFM2-350M-GGUF:Q4_K_M',
  files: [file],
  createdAt: 1,
} as unknown as ModelRecord;

async function refusal(write: Promise<void>): Promise<LmtabError> {
  const error = await write.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(LmtabError);
  return error as LmtabError;
}

describe('a full quota', () => {
  it("on a chunk names the file and how far it got, whatever the browser's message", async () => {
    const store = createIdbModelStore({ name: 'quota-chunk', keyval: fullQuota('chunks') });
    const error = await refusal(store.writeChunk(file, 2, new Blob([new Uint8Array(8)])));
    expect(error.code).toBe('quota_exceeded');
    expect(error.message).toBe(
      'Not enough storage: the browser refused to store LFM2-350M-Q4_K_M.gguf beyond 131.1 KB of 396.3 KB (its storage quota is full). Delete a model to make room, then try again.',
    );
  });

  it('on a download record names the file whose progress it keeps', async () => {
    const store = createIdbModelStore({ name: 'quota-record', keyval: fullQuota('records') });
    const error = await refusal(store.putRecord(record));
    expect(error.code).toBe('quota_exceeded');
    expect(error.message).toContain(
      'the browser refused to store LFM2-350M-Q4_K_M.gguf beyond 131.1 KB of 396.3 KB',
    );
  });

  it('on a finished record names the model, and other errors pass as they are', async () => {
    const store = createIdbModelStore({ name: 'quota-done', keyval: fullQuota('records') });
    const done = { ...record, files: [{ ...file, complete: true }] };
    expect((await refusal(store.putRecord(done))).message).toContain(
      `refused to store the record of ${record.id}`,
    );
    const broken = createIdbModelStore({
      name: 'quota-other',
      keyval: { ...memoryKeyval, set: () => Promise.reject(new DOMException('x', 'UnknownError')) },
    });
    await expect(broken.putRecord(done)).rejects.toMatchObject({ name: 'UnknownError' });
  });
});
