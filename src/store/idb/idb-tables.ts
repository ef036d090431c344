import { LmtabError } from '../../errors/index.js';
import type { ModelRecord, StoredFile } from '../model-record.js';
import { filesOf, isComplete, storedBytes } from '../model-record.js';
import { formatBytes } from '../storage-space.js';
import { filesBeingWritten } from '../upload-lock.js';

/** The idb-keyval functions the store calls, over a store handle of the backend's own kind. */
export interface Keyval<Store = unknown> {
  createStore(dbName: string, storeName: string): Store;
  get<T>(key: IDBValidKey, store: Store): Promise<T | undefined>;
  getMany<T>(keys: IDBValidKey[], store: Store): Promise<(T | undefined)[]>;
  set(key: IDBValidKey, value: unknown, store: Store): Promise<void>;
  del(key: IDBValidKey, store: Store): Promise<void>;
  delMany(keys: IDBValidKey[], store: Store): Promise<void>;
  keys<K extends IDBValidKey = IDBValidKey>(store: Store): Promise<K[]>;
  values<T>(store: Store): Promise<T[]>;
}

/**
 * The store's two tables, records and file chunks, and what every part of the store does with
 * them: read and save records, write, read and delete a file's chunks, and drop the files no record
 * uses any more. Each write that the browser refuses for a full quota becomes `quota_exceeded`.
 */
export interface IdbTables {
  /** Bytes per stored chunk of a new file. */
  chunkSize: number;
  /** The clock of the records' timestamps. */
  clock: () => number;
  /** Every record, complete or not. */
  records(): Promise<ModelRecord[]>;
  get(id: string): Promise<ModelRecord | undefined>;
  /** The record of `id`; `model_not_found` when there is none. */
  require(id: string): Promise<ModelRecord>;
  /** Saves a record; a full quota names the file whose progress it was keeping. */
  save(record: ModelRecord): Promise<void>;
  /** Saves a record over any of the same id, dropping the files only the replaced one used. */
  replace(record: ModelRecord): Promise<ModelRecord>;
  /** Deletes the chunks of a record's files that no remaining record uses (copies share files). */
  dropUnusedFiles(record: ModelRecord): Promise<void>;
  /** Deletes a record and the files no other record uses; false when there was none. */
  remove(id: string): Promise<boolean>;
  /** The stored chunks of a file as one Blob (disk-backed: nothing is read into memory). */
  readFile(file: StoredFile): Promise<Blob>;
  writeChunk(file: StoredFile, index: number, data: Blob): Promise<void>;
  deleteChunks(file: StoredFile): Promise<void>;
  /** Deletes the chunks no record names and no context is writing; resolves to how many. */
  sweepOrphanChunks(): Promise<number>;
}

/** The tables of the store named `name` (two IndexedDB databases, `NAME-models` and `NAME-chunks`). */
export function createIdbTables(
  keyval: Keyval,
  { name, chunkSize, clock }: { name: string; chunkSize: number; clock: () => number },
): IdbTables {
  const { createStore, del, delMany, get, getMany, keys, set, values } = keyval;
  const records = createStore(`${name}-models`, 'records');
  const chunks = createStore(`${name}-chunks`, 'chunks');
  const chunkKey = (fileId: string, index: number) => `${fileId}:${index}`;

  const getRecord = (id: string) => get<ModelRecord>(id, records);
  const allRecords = () => values<ModelRecord>(records);

  async function save(record: ModelRecord): Promise<void> {
    const pending = filesOf(record).find((file) => !file.complete);
    const what =
      pending === undefined
        ? `the record of ${record.id}`
        : `${pending.name} beyond ${formatBytes(storedBytes(pending))} of ${formatBytes(pending.size)}`;
    await quotaChecked(set(record.id, record, records), what);
  }

  async function deleteChunks(file: StoredFile): Promise<void> {
    // A download may have written chunk `chunks` and stopped before saving its record: drop it too.
    const count = file.complete ? file.chunks : file.chunks + 1;
    const keys = Array.from({ length: count }, (_, i) => chunkKey(file.fileId, i));
    if (keys.length > 0) await delMany(keys, chunks);
  }

  /** Deletes the chunks of a record's files that no remaining record uses (copies share files). */
  async function dropUnusedFiles(record: ModelRecord): Promise<void> {
    const inUse = usedFileIds(await allRecords());
    for (const file of filesOf(record)) {
      if (!inUse.has(file.fileId)) await deleteChunks(file);
    }
  }

  return {
    chunkSize,
    clock,
    records: allRecords,
    get: getRecord,
    async require(id) {
      const record = await getRecord(id);
      if (!record) {
        throw new LmtabError('model_not_found', `Model "${id}" is not in the store.`, {
          param: 'model',
        });
      }
      return record;
    },
    save,
    dropUnusedFiles,
    async replace(record) {
      const previous = await getRecord(record.id);
      await save(record);
      if (previous) await dropUnusedFiles(previous);
      return record;
    },
    async remove(id) {
      const record = await getRecord(id);
      if (!record) return false;
      await del(id, records);
      await dropUnusedFiles(record);
      return true;
    },
    async readFile(file) {
      const keys = Array.from({ length: file.chunks }, (_, i) => chunkKey(file.fileId, i));
      const parts = await getMany<Blob>(keys, chunks);
      const missing = parts.findIndex((p) => !p);
      if (missing >= 0) {
        throw new LmtabError(
          'engine_failure',
          `Chunk ${missing} of ${file.name} is missing from the store; delete and re-import the model.`,
        );
      }
      return new Blob(parts as Blob[]);
    },
    async writeChunk(file, index, data) {
      const progress = `${file.name} beyond ${formatBytes(index * file.chunkSize)} of ${formatBytes(file.size)}`;
      await quotaChecked(set(chunkKey(file.fileId, index), data, chunks), progress);
    },
    deleteChunks,
    // The chunk keys are read first, so a file that gains a record meanwhile still counts as used.
    async sweepOrphanChunks() {
      const chunkKeys = await keys<string>(chunks);
      const writing = await filesBeingWritten();
      if (writing === undefined) return 0;
      const used = usedFileIds(await allRecords());
      const orphans = chunkKeys.filter((key) => {
        const fileId = String(key).slice(0, String(key).lastIndexOf(':'));
        return !used.has(fileId) && !writing.has(fileId);
      });
      if (orphans.length > 0) await delMany(orphans, chunks);
      return orphans.length;
    },
  };
}

/** The records that are whole, newest first (what the store lists). */
export function completeRecords(records: ModelRecord[]): ModelRecord[] {
  return records.filter(isComplete).sort((a, b) => b.createdAt - a.createdAt);
}

/** The ids of the files the records name, projectors included. */
function usedFileIds(records: readonly ModelRecord[]): Set<string> {
  return new Set(records.flatMap((record) => filesOf(record).map((file) => file.fileId)));
}

/**
 * Waits for a write; the browser's refusal for a full quota becomes `quota_exceeded` naming what it
 * refused. Any write may be the one refused: Chromium 156 took a chunk and refused the small record
 * saved after it.
 */
async function quotaChecked(write: Promise<void>, what: string): Promise<void> {
  try {
    await write;
  } catch (error) {
    if (error instanceof DOMException && error.name === 'QuotaExceededError') {
      throw new LmtabError(
        'quota_exceeded',
        `Not enough storage: the browser refused to store ${what} (its storage quota is full). Delete a model to make room, then try again.`,
        { cause: error },
      );
    }
    throw error;
  }
}
