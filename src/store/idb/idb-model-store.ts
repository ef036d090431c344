import * as idbKeyval from 'idb-keyval';
import { LmtabError } from '../../errors/index.js';
import type { ModelCustomization } from '../../modelfile/index.js';
import type { ModelRecord, StoredFile } from '../model-record.js';
import { isComplete } from '../model-record.js';
import type { ModelBlobs, ModelStore } from '../store.js';
import { composeModel } from './compose-model.js';
import { completeRecords, createIdbTables, type IdbTables, type Keyval } from './idb-tables.js';
import { importFiles, importStream } from './import-model.js';

export type { Keyval } from './idb-tables.js';
export { modelIdFromFileName } from './import-model.js';

/** Bytes per stored chunk of a model file, for every writer of the store. */
export const defaultChunkSize = 16 * 1024 * 1024;

/** Options of {@link createIdbModelStore}. */
export interface IdbModelStoreOptions {
  /** IndexedDB database name prefix; default `lmtab`. Tests use their own to stay apart. */
  name?: string;
  /** Bytes per stored chunk; default {@link defaultChunkSize} (a cut download resumes from the last whole chunk). */
  chunkSize?: number;
  /** Clock for timestamps; default `Date.now`. */
  clock?: () => number;
  /** Where the entries live; default idb-keyval over IndexedDB. Node tests pass `testing/memory-idb-keyval`. */
  keyval?: Keyval;
}

/**
 * The model store in IndexedDB: one database of records, one of file chunks (`idb-tables.ts`).
 * Chunks are Blobs, so opening a model for the engine reads nothing into memory: the Blobs are
 * disk-backed. Imports live in `import-model.ts`, models made of another's weights in
 * `compose-model.ts`, the writing of files in `store-file.ts`.
 */
export function createIdbModelStore(
  options: IdbModelStoreOptions = {},
): ModelStore & ChunkWriter & OrphanSweeper {
  const tables = createIdbTables(options.keyval ?? idbKeyval, {
    name: options.name ?? 'lmtab',
    chunkSize: options.chunkSize ?? defaultChunkSize,
    clock: options.clock ?? Date.now,
  });
  /** A record under another name, as a new model: created now, never used, not paused. */
  const renamed = (base: ModelRecord, id: string): ModelRecord => {
    const record: ModelRecord = { ...base, id, createdAt: tables.clock() };
    delete record.lastUsedAt;
    delete record.paused;
    return record;
  };
  return {
    list: async () => completeRecords(await tables.records()),
    get: tables.get,
    importFiles: (file, importOptions) => importFiles(tables, file, importOptions),
    importStream: (source, streamOptions) => importStream(tables, source, streamOptions),
    compose: (id, parts) => composeModel(tables, id, parts),
    createCustom: async (id: string, customization: ModelCustomization) =>
      tables.replace({ ...renamed(await tables.require(customization.from), id), customization }),
    copy: async (source, destination) =>
      tables.replace(renamed(await tables.require(source), destination)),
    delete: tables.remove,
    open: (id) => openModel(tables, id),
    async touch(id) {
      const record = await tables.get(id);
      if (record) await tables.save({ ...record, lastUsedAt: tables.clock() });
    },
    sweepOrphanChunks: tables.sweepOrphanChunks,
    writeChunk: tables.writeChunk,
    putRecord: tables.save,
    readFile: tables.readFile,
    partials: async () =>
      (await tables.records())
        .filter((record) => !isComplete(record))
        .sort((a, b) => a.createdAt - b.createdAt),
  };
}

/** A whole model's files as Blobs for the engine; `model_not_found` while it downloads. */
async function openModel(tables: IdbTables, id: string): Promise<ModelBlobs> {
  const record = await tables.require(id);
  if (!isComplete(record)) {
    throw new LmtabError('model_not_found', `Model "${id}" is still downloading.`, {
      param: 'model',
    });
  }
  const read = (file: StoredFile) => tables.readFile(file);
  return {
    model: await Promise.all(record.files.map(read)),
    projector: record.projector ? await read(record.projector) : undefined,
  };
}

/** Low-level access for downloads, which write chunks as they arrive and resume from the last one. */
export interface ChunkWriter {
  /** Stores chunk `index` of a file. */
  writeChunk(file: StoredFile, index: number, data: Blob): Promise<void>;
  /** Saves a record (also a partial one, while downloading). */
  putRecord(record: ModelRecord): Promise<void>;
  /** The stored chunks of a file as one Blob (also of a file still downloading). */
  readFile(file: StoredFile): Promise<Blob>;
  /** Every unfinished download, oldest first. */
  partials(): Promise<ModelRecord[]>;
}

/** Cleanup of the IndexedDB store. */
export interface OrphanSweeper {
  /**
   * Deletes chunks that no record names and no live tab is writing (left by a tab that died
   * mid-upload); resolves to how many.
   */
  sweepOrphanChunks(): Promise<number>;
}
