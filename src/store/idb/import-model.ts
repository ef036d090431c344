import { LmtabError } from '../../errors/index.js';
import { readGgufSummary } from '../gguf-header.js';
import type { ModelRecord, StoredFile } from '../model-record.js';
import { ensureSpace } from '../storage-space.js';
import type { ImportOptions, StoreProgress, StreamImportOptions } from '../store.js';
import { uploadSession, type UploadSession } from '../upload-lock.js';
import type { IdbTables } from './idb-tables.js';
import { storeFile, storeStream } from './store-file.js';

/** Derives a model name from a file name: `LFM2-350M-Q4_K_M.gguf` -> `lfm2-350m-q4_k_m`. */
export function modelIdFromFileName(fileName: string): string {
  return fileName
    .replace(/\.gguf$/i, '')
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9._:/-]+/g, '-');
}

/** The refusal of a projector given where a model was expected. */
function notAModel(fileName: string): LmtabError {
  return new LmtabError(
    'invalid_request',
    `${fileName} is a vision projector (mmproj), not a model: import the model file and attach this one as its projector.`,
  );
}

/**
 * Imports a local GGUF file (and its projector) as a model: both checked to be what they claim,
 * the room for them checked first, the record saved once both are stored.
 */
export async function* importFiles(
  tables: IdbTables,
  file: File,
  options: ImportOptions = {},
): AsyncGenerator<StoreProgress> {
  const { projector } = options;
  const gguf = await readGgufSummary(file);
  if (gguf.fileKind === 'mmproj') throw notAModel(file.name);
  const projectorSummary = projector ? await readGgufSummary(projector) : undefined;
  if (projector && projectorSummary?.fileKind !== 'mmproj') {
    throw new LmtabError(
      'invalid_request',
      `${projector.name} is not a vision projector: expected a GGUF with general.type "mmproj" or architecture "clip", got architecture "${projectorSummary?.architecture}".`,
    );
  }
  await ensureSpace(file.size + (projector?.size ?? 0));
  const id = options.id ?? modelIdFromFileName(file.name);
  const session = uploadSession();
  try {
    yield* importUnder(tables, id, file, gguf, session, options);
  } finally {
    session.end();
  }
}

/** Stores the files of {@link importFiles} and saves their record, within `session`. */
async function* importUnder(
  tables: IdbTables,
  id: string,
  file: File,
  gguf: ModelRecord['gguf'],
  session: UploadSession,
  { signal, projector }: ImportOptions,
): AsyncGenerator<StoreProgress> {
  const stored = yield* storeFile(tables, file, file.name, session, signal);
  let storedProjector: StoredFile | undefined;
  try {
    if (projector) {
      storedProjector = yield* storeFile(tables, projector, projector.name, session, signal);
    }
  } catch (error) {
    await tables.deleteChunks(stored);
    throw error;
  }
  const record = await tables.replace({
    id,
    source: { kind: 'import', fileName: file.name },
    files: [stored],
    projector: storedProjector,
    gguf,
    sizeBytes: stored.size + (storedProjector?.size ?? 0),
    digest: stored.sha256,
    createdAt: tables.clock(),
  });
  yield { type: 'done', record };
}

/**
 * Imports a model from a stream (an upload through the relay or the service worker): stored whole
 * and checked (see `storeStream`), read as a GGUF model, then recorded under `id`. Nothing is kept
 * of a stream that fails.
 */
export async function importStream(
  tables: IdbTables,
  source: ReadableStream<Uint8Array>,
  { id, fileName, signal, size, sha256 }: StreamImportOptions,
): Promise<ModelRecord> {
  if (size !== undefined) await ensureSpace(size);
  const session = uploadSession();
  try {
    const file = await storeStream(tables, source, { fileName, sha256, session, signal });
    try {
      const gguf = await readGgufSummary(await tables.readFile(file), { signal });
      if (gguf.fileKind === 'mmproj') throw notAModel(fileName);
      return await tables.replace({
        id,
        source: { kind: 'import', fileName },
        files: [file],
        gguf,
        sizeBytes: file.size,
        digest: file.sha256,
        createdAt: tables.clock(),
      });
    } catch (error) {
      await tables.deleteChunks({ ...file, complete: false });
      throw error;
    }
  } finally {
    session.end();
  }
}
