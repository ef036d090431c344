import * as idbKeyval from 'idb-keyval';
import { LmtabError } from '../errors/index.js';
import { readGgufSummary } from './gguf-header.js';
import type { ModelCustomization } from '../modelfile/index.js';
import type { ModelRecord, StoredFile } from './model-record.js';
import { filesOf, isComplete, modelFormat, storedBytes } from './model-record.js';
import { readChunks } from './read-chunks.js';
import { Sha256 } from './sha256.js';
import { filesBeingWritten, uploadSession, type UploadSession } from './upload-lock.js';
import type {
  ImportOptions,
  ModelBlobs,
  ModelParts,
  ModelStore,
  StoreProgress,
  StreamImportOptions,
} from './store.js';
import { ensureSpace, formatBytes } from './storage-space.js';

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

/** Derives a model name from a file name: `LFM2-350M-Q4_K_M.gguf` -> `lfm2-350m-q4_k_m`. */
export function modelIdFromFileName(fileName: string): string {
  return fileName
    .replace(/\.gguf$/i, '')
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9._:/-]+/g, '-');
}

/**
 * The model store in IndexedDB: one database of records, one of file chunks. Chunks are Blobs, so
 * opening a model for the engine reads nothing into memory: the Blobs are disk-backed.
 */
export function createIdbModelStore(
  options: IdbModelStoreOptions = {},
): ModelStore & ChunkWriter & OrphanSweeper {
  const name = options.name ?? 'lmtab';
  const chunkSize = options.chunkSize ?? defaultChunkSize;
  const clock = options.clock ?? Date.now;
  const keyval: Keyval = options.keyval ?? idbKeyval;
  const { createStore, del, delMany, get, getMany, keys, set, values } = keyval;
  const records = createStore(`${name}-models`, 'records');
  const chunks = createStore(`${name}-chunks`, 'chunks');

  const chunkKey = (fileId: string, index: number) => `${fileId}:${index}`;

  async function list(): Promise<ModelRecord[]> {
    const all = (await values<ModelRecord>(records)).filter(isComplete);
    return all.sort((a, b) => b.createdAt - a.createdAt);
  }

  async function getRecord(id: string): Promise<ModelRecord | undefined> {
    return get<ModelRecord>(id, records);
  }

  async function requireRecord(id: string): Promise<ModelRecord> {
    const record = await getRecord(id);
    if (!record) {
      throw new LmtabError('model_not_found', `Model "${id}" is not in the store.`, {
        param: 'model',
      });
    }
    return record;
  }

  async function readBlob(file: StoredFile): Promise<Blob> {
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
  }

  async function writeChunk(file: StoredFile, index: number, data: Blob): Promise<void> {
    const progress = `${file.name} beyond ${formatBytes(index * file.chunkSize)} of ${formatBytes(file.size)}`;
    await quotaChecked(set(chunkKey(file.fileId, index), data, chunks), progress);
  }

  /** Saves a record; a full quota names the file whose progress it was keeping. */
  async function saveRecord(record: ModelRecord): Promise<void> {
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

  /** Writes a local file into chunks, hashing as it goes; `session` marks it until it is saved. */
  async function* storeFile(
    source: Blob,
    fileName: string,
    session: UploadSession,
    signal?: AbortSignal,
  ) {
    const file: StoredFile = {
      fileId: crypto.randomUUID(),
      name: fileName,
      size: source.size,
      chunkSize,
      chunks: 0,
      complete: false,
    };
    await session.hold(file.fileId);
    const hash = new Sha256();
    const writes = overlappedWrites();
    try {
      for (let offset = 0; offset < source.size; offset += chunkSize) {
        signal?.throwIfAborted();
        const part = source.slice(offset, offset + chunkSize);
        hash.update(new Uint8Array(await part.arrayBuffer()));
        await writes.start(() => writeChunk(file, file.chunks, part));
        file.chunks += 1;
        yield {
          type: 'progress',
          file: fileName,
          bytes: Math.min(offset + chunkSize, source.size),
          total: source.size,
        } as const;
      }
      await writes.finish();
    } catch (error) {
      await writes.settled();
      await deleteChunks(file);
      throw error;
    }
    file.sha256 = hash.digestHex();
    file.complete = true;
    return file;
  }

  async function* importFiles(
    file: File,
    importOptions: ImportOptions = {},
  ): AsyncGenerator<StoreProgress> {
    const { projector } = importOptions;
    const gguf = await readGgufSummary(file);
    if (gguf.fileKind === 'mmproj') {
      throw new LmtabError(
        'invalid_request',
        `${file.name} is a vision projector (mmproj), not a model: import the model file and attach this one as its projector.`,
      );
    }
    const projectorSummary = projector ? await readGgufSummary(projector) : undefined;
    if (projector && projectorSummary?.fileKind !== 'mmproj') {
      throw new LmtabError(
        'invalid_request',
        `${projector.name} is not a vision projector: expected a GGUF with general.type "mmproj" or architecture "clip", got architecture "${projectorSummary?.architecture}".`,
      );
    }
    await ensureSpace(file.size + (projector?.size ?? 0));
    const id = importOptions.id ?? modelIdFromFileName(file.name);
    const session = uploadSession();
    try {
      yield* importUnder(id, file, gguf, session, importOptions);
    } finally {
      session.end();
    }
  }

  /** Stores the files of {@link importFiles} and saves their record, within `session`. */
  async function* importUnder(
    id: string,
    file: File,
    gguf: ModelRecord['gguf'],
    session: UploadSession,
    { signal, projector }: ImportOptions,
  ): AsyncGenerator<StoreProgress> {
    const stored = yield* storeFile(file, file.name, session, signal);
    let storedProjector: StoredFile | undefined;
    try {
      if (projector) storedProjector = yield* storeFile(projector, projector.name, session, signal);
    } catch (error) {
      await deleteChunks(stored);
      throw error;
    }
    const previous = await getRecord(id);
    const record: ModelRecord = {
      id,
      source: { kind: 'import', fileName: file.name },
      files: [stored],
      projector: storedProjector,
      gguf,
      sizeBytes: stored.size + (storedProjector?.size ?? 0),
      digest: stored.sha256,
      createdAt: clock(),
    };
    await saveRecord(record);
    if (previous) await dropUnusedFiles(previous);
    yield { type: 'done', record };
  }

  async function importStream(
    source: ReadableStream<Uint8Array>,
    streamOptions: StreamImportOptions,
  ): Promise<ModelRecord> {
    const { id, fileName, signal } = streamOptions;
    if (streamOptions.size !== undefined) await ensureSpace(streamOptions.size);
    const file: StoredFile = {
      fileId: crypto.randomUUID(),
      name: fileName,
      size: 0,
      chunkSize,
      chunks: 0,
      complete: false,
    };
    const hash = new Sha256();
    const session = uploadSession();
    await session.hold(file.fileId);
    const writes = overlappedWrites();
    try {
      for await (const parts of readChunks(source, chunkSize, signal)) {
        signal?.throwIfAborted();
        if (file.chunks === 0) refuseNonGguf(fileName, parts);
        for (const part of parts) {
          hash.update(part);
          file.size += part.byteLength;
        }
        // The Blob takes the bytes out of this context; the views are dropped right after.
        await writes.start(() => writeChunk(file, file.chunks, new Blob(parts as BlobPart[])));
        file.chunks += 1;
      }
      await writes.finish();
      signal?.throwIfAborted();
      file.sha256 = hash.digestHex();
      if (streamOptions.sha256 !== undefined && file.sha256 !== streamOptions.sha256) {
        throw new LmtabError(
          'invalid_request',
          `Digest mismatch: expected sha256:${streamOptions.sha256}, but the ${file.size} bytes received hash to sha256:${file.sha256}; nothing was kept.`,
        );
      }
      if (file.size === 0) {
        throw new LmtabError(
          'invalid_request',
          'Missing request body: expected the bytes of a GGUF model file, received an empty body.',
        );
      }
      file.complete = true;
      const gguf = await readGgufSummary(await readBlob(file), { signal });
      if (gguf.fileKind === 'mmproj') {
        throw new LmtabError(
          'invalid_request',
          `${fileName} is a vision projector (mmproj), not a model: import the model file and attach this one as its projector.`,
        );
      }
      const previous = await getRecord(id);
      const record: ModelRecord = {
        id,
        source: { kind: 'import', fileName },
        files: [file],
        gguf,
        sizeBytes: file.size,
        digest: file.sha256,
        createdAt: clock(),
      };
      await saveRecord(record);
      if (previous) await dropUnusedFiles(previous);
      return record;
    } catch (error) {
      await writes.settled();
      await deleteChunks({ ...file, complete: false });
      throw error;
    } finally {
      session.end();
    }
  }

  async function compose(id: string, parts: ModelParts): Promise<ModelRecord> {
    const weights = await requireRecord(parts.weightsOf);
    if (modelFormat(weights) !== 'gguf' || !weights.files.every((f) => f.complete)) {
      throw new LmtabError(
        'invalid_request',
        `Model "${weights.id}" cannot lend its weights: expected a GGUF model stored whole, found ${modelFormat(weights) === 'gguf' ? 'one still downloading' : 'an MLC model'}.`,
      );
    }
    const { projector } = parts;
    const session = uploadSession();
    let stored: StoredFile | undefined;
    let record: ModelRecord;
    let previous: ModelRecord | undefined;
    try {
      if (projector !== undefined && 'file' in projector) {
        stored = await storeProjector(projector.file, session, parts.signal);
      }
      const attached =
        stored ??
        (projector !== undefined && 'of' in projector
          ? await projectorOf(projector.of)
          : undefined);
      const files = [...weights.files, ...(attached === undefined ? [] : [attached])];
      record = {
        id,
        source: {
          kind: 'import',
          fileName: parts.fileName ?? weights.files[0]?.name ?? `${id}.gguf`,
        },
        files: weights.files,
        ...(attached === undefined ? {} : { projector: attached }),
        gguf: weights.gguf,
        sizeBytes: files.reduce((sum, f) => sum + f.size, 0),
        ...(weights.digest === undefined ? {} : { digest: weights.digest }),
        createdAt: clock(),
        ...(parts.customization === undefined ? {} : { customization: parts.customization }),
      };
      previous = await getRecord(id);
      await saveRecord(record);
    } catch (error) {
      if (stored !== undefined) await deleteChunks(stored);
      throw error;
    } finally {
      session.end();
    }
    if (previous) await dropUnusedFiles(previous);
    return record;
  }

  /** The projector of a stored model, to share; throws when it has none. */
  async function projectorOf(id: string): Promise<StoredFile> {
    const holder = await requireRecord(id);
    if (holder.projector?.complete !== true) {
      throw new LmtabError(
        'invalid_request',
        `Model "${id}" has no stored vision projector to share: expected one whole, found ${holder.projector === undefined ? 'none' : 'one still downloading'}.`,
      );
    }
    return holder.projector;
  }

  /** Stores a vision projector file (checked to be one), within `session`. */
  async function storeProjector(
    projector: File,
    session: UploadSession,
    signal?: AbortSignal,
  ): Promise<StoredFile> {
    const summary = await readGgufSummary(projector);
    if (summary.fileKind !== 'mmproj') {
      throw new LmtabError(
        'invalid_request',
        `${projector.name} is not a vision projector: expected a GGUF with general.type "mmproj", got architecture "${summary.architecture}".`,
      );
    }
    await ensureSpace(projector.size);
    for (let step = storeFile(projector, projector.name, session, signal); ;) {
      const next = await step.next();
      if (next.done) return next.value;
    }
  }

  async function createCustom(id: string, customization: ModelCustomization): Promise<ModelRecord> {
    const base = await requireRecord(customization.from);
    return replaceRecord({ ...renamed(base, id), customization });
  }

  async function copy(source: string, destination: string): Promise<ModelRecord> {
    return replaceRecord(renamed(await requireRecord(source), destination));
  }

  /** A record under another name, as a new model: created now, never used, not paused. */
  function renamed(base: ModelRecord, id: string): ModelRecord {
    const record: ModelRecord = { ...base, id, createdAt: clock() };
    delete record.lastUsedAt;
    delete record.paused;
    return record;
  }

  /** Saves a record over any of the same id, dropping the files only the replaced one used. */
  async function replaceRecord(record: ModelRecord): Promise<ModelRecord> {
    const previous = await getRecord(record.id);
    await saveRecord(record);
    if (previous) await dropUnusedFiles(previous);
    return record;
  }

  /** Deletes the chunks of a record's files that no remaining record uses (copies share files). */
  async function dropUnusedFiles(record: ModelRecord): Promise<void> {
    const inUse = new Set<string>();
    for (const other of await values<ModelRecord>(records)) {
      for (const f of [...other.files, ...(other.projector ? [other.projector] : [])])
        inUse.add(f.fileId);
    }
    for (const f of [...record.files, ...(record.projector ? [record.projector] : [])]) {
      if (!inUse.has(f.fileId)) await deleteChunks(f);
    }
  }

  async function remove(id: string): Promise<boolean> {
    const record = await getRecord(id);
    if (!record) return false;
    await del(id, records);
    await dropUnusedFiles(record);
    return true;
  }

  async function open(id: string): Promise<ModelBlobs> {
    const record = await requireRecord(id);
    if (!isComplete(record)) {
      throw new LmtabError('model_not_found', `Model "${id}" is still downloading.`, {
        param: 'model',
      });
    }
    return {
      model: await Promise.all(record.files.map(readBlob)),
      projector: record.projector ? await readBlob(record.projector) : undefined,
    };
  }

  /**
   * Deletes the chunks of files no record names and no context is writing: what an upload or
   * import left when its tab died before it could save or delete them. The chunk keys are read
   * first, so a file that gains a record while this runs still counts as used.
   */
  async function sweepOrphanChunks(): Promise<number> {
    const chunkKeys = await keys<string>(chunks);
    const writing = await filesBeingWritten();
    if (writing === undefined) return 0;
    const used = new Set<string>();
    for (const record of await values<ModelRecord>(records)) {
      for (const f of [...record.files, ...(record.projector ? [record.projector] : [])]) {
        used.add(f.fileId);
      }
    }
    const orphans = chunkKeys.filter((key) => {
      const fileId = String(key).slice(0, String(key).lastIndexOf(':'));
      return !used.has(fileId) && !writing.has(fileId);
    });
    if (orphans.length > 0) await delMany(orphans, chunks);
    return orphans.length;
  }

  async function touch(id: string): Promise<void> {
    const record = await getRecord(id);
    if (record) await saveRecord({ ...record, lastUsedAt: clock() });
  }

  return {
    list,
    get: getRecord,
    importFiles,
    importStream,
    compose,
    createCustom,
    copy,
    delete: remove,
    open,
    touch,
    sweepOrphanChunks,
    writeChunk,
    putRecord: saveRecord,
    readFile: readBlob,
    partials: async () =>
      (await values<ModelRecord>(records))
        .filter((record) => !isComplete(record))
        .sort((a, b) => a.createdAt - b.createdAt),
  };
}

/**
 * One chunk write in flight while the next chunk is read and hashed: a stream's sender keeps
 * sending (its credit comes back as the chunk is read, not once it is on disk), and a file's next
 * slice is read while the last is written. Uploads through the relay ran at 18 MiB/s with each
 * write awaited.
 */
function overlappedWrites() {
  let inFlight: Promise<void> | undefined;
  return {
    /** Waits for the write before (throwing its error), then starts `write` and lets it run. */
    async start(write: () => Promise<void>): Promise<void> {
      await inFlight;
      const started = write();
      inFlight = started;
      // Its error is thrown by the next start() or finish(); until then it is not unhandled.
      started.catch(() => undefined);
    },
    /** Waits for the last write, throwing its error. */
    finish: (): Promise<void> => inFlight ?? Promise.resolve(),
    /** Waits for the last write, whatever its outcome (before deleting what was written). */
    settled: (): Promise<void> => (inFlight ?? Promise.resolve()).catch(() => undefined),
  };
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

/** Refuses a stream at its first chunk when it does not start like a GGUF file. */
function refuseNonGguf(fileName: string, parts: Uint8Array[]): void {
  const head = new Uint8Array(4);
  let filled = 0;
  for (const part of parts) {
    const take = part.subarray(0, head.length - filled);
    head.set(take, filled);
    filled += take.byteLength;
    if (filled === head.length) break;
  }
  if (filled < head.length || new TextDecoder().decode(head) === 'GGUF') return;
  throw new LmtabError(
    'invalid_request',
    `${fileName} is not a GGUF file: expected its first bytes to be "GGUF", received ${JSON.stringify(new TextDecoder().decode(head))}.`,
  );
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
