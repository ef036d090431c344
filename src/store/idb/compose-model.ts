import { LmtabError } from '../../errors/index.js';
import { readGgufSummary } from '../gguf-header.js';
import type { ModelRecord, StoredFile } from '../model-record.js';
import { modelFormat } from '../model-record.js';
import { ensureSpace } from '../storage-space.js';
import type { ModelParts } from '../store.js';
import { uploadSession, type UploadSession } from '../upload-lock.js';
import type { IdbTables } from './idb-tables.js';
import { storeWholeFile } from './store-file.js';

/**
 * Records a model made of another's weights (shared, not copied) and a projector: a new file, one
 * another model holds, or none. A new projector is deleted again when the record cannot be saved.
 */
export async function composeModel(
  tables: IdbTables,
  id: string,
  parts: ModelParts,
): Promise<ModelRecord> {
  const weights = await tables.require(parts.weightsOf);
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
      stored = await storeProjector(tables, projector.file, session, parts.signal);
    }
    const attached =
      stored ??
      (projector !== undefined && 'of' in projector
        ? await projectorOf(tables, projector.of)
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
      createdAt: tables.clock(),
      ...(parts.customization === undefined ? {} : { customization: parts.customization }),
    };
    previous = await tables.get(id);
    await tables.save(record);
  } catch (error) {
    if (stored !== undefined) await tables.deleteChunks(stored);
    throw error;
  } finally {
    session.end();
  }
  // Saved: a failure from here on must not take the new record's projector with it.
  if (previous) await tables.dropUnusedFiles(previous);
  return record;
}

/** The projector of a stored model, to share; throws when it has none. */
async function projectorOf(tables: IdbTables, id: string): Promise<StoredFile> {
  const holder = await tables.require(id);
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
  tables: IdbTables,
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
  return storeWholeFile(tables, projector, projector.name, session, signal);
}
