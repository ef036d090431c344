import type { DownloadStore } from '../downloads/download-model.js';
import type { ModelRecord } from '../model-record.js';
import { filesOf, isComplete } from '../model-record.js';

/** An in-memory {@link DownloadStore} for tests, with its chunks open to inspection. */
export interface MemoryDownloadStore extends DownloadStore {
  /** Stored records by id (structured clones, as IndexedDB keeps them). */
  records: Map<string, ModelRecord>;
  /** Stored chunks by `fileId:index`. */
  chunks: Map<string, Blob>;
  /** Every chunk write, in order, as `name:index`. */
  writes: string[];
}

/** Creates an empty {@link MemoryDownloadStore}. */
export function createMemoryDownloadStore(): MemoryDownloadStore {
  const records = new Map<string, ModelRecord>();
  const chunks = new Map<string, Blob>();
  const writes: string[] = [];
  return {
    records,
    chunks,
    writes,
    get: (id) => Promise.resolve(records.has(id) ? structuredClone(records.get(id)) : undefined),
    putRecord: (record) => {
      records.set(record.id, structuredClone(record));
      return Promise.resolve();
    },
    writeChunk: (file, index, data) => {
      chunks.set(`${file.fileId}:${index}`, data);
      writes.push(`${file.name}:${index}`);
      return Promise.resolve();
    },
    readFile: (file) =>
      Promise.resolve(
        new Blob(
          Array.from({ length: file.chunks }, (_, i) => {
            const chunk = chunks.get(`${file.fileId}:${i}`);
            if (chunk === undefined) throw new Error(`chunk ${i} of ${file.name} is missing`);
            return chunk;
          }),
        ),
      ),
    partials: () => Promise.resolve([...records.values()].filter((r) => !isComplete(r))),
    delete: (id) => {
      const record = records.get(id);
      if (record === undefined) return Promise.resolve(false);
      records.delete(id);
      for (const file of filesOf(record)) {
        for (const key of [...chunks.keys()])
          if (key.startsWith(`${file.fileId}:`)) chunks.delete(key);
      }
      return Promise.resolve(true);
    },
  };
}
