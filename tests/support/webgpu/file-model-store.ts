import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { LmtabError } from '../../../src/errors/index.js';
import { readGgufSummary, type ModelRecord, type ModelStore } from '../../../src/store/index.js';

/** A model's files on disk. */
export interface ModelFiles {
  /** The GGUF file. */
  model: string;
  /** Its vision projector (mmproj GGUF), if any. */
  projector?: string;
}

/**
 * The part of lmtab's model store an engine reads (`get`, `open`, `touch`), over files on disk:
 * records are made from each file's GGUF header, and the engine gets file-backed Blobs, as it gets
 * IndexedDB-backed ones in the browser.
 */
export function fileModelStore(
  models: Record<string, ModelFiles>,
): Pick<ModelStore, 'get' | 'open' | 'touch'> {
  const records = new Map<string, Promise<ModelRecord>>();
  const record = (id: string): Promise<ModelRecord> => {
    const files = models[id];
    if (!files) {
      return Promise.reject(
        new LmtabError(
          'model_not_found',
          `Model "${id}": expected one of ${Object.keys(models).join(', ')}`,
        ),
      );
    }
    let made = records.get(id);
    if (!made) {
      made = makeRecord(id, files);
      records.set(id, made);
    }
    return made;
  };
  return {
    get: (id) => record(id).catch(() => undefined),
    async open(id) {
      await record(id);
      const files = models[id]!;
      return {
        model: [await openAsBlob(files.model)],
        ...(files.projector && { projector: await openAsBlob(files.projector) }),
      };
    },
    touch: async () => undefined,
  };
}

async function makeRecord(id: string, files: ModelFiles): Promise<ModelRecord> {
  const gguf = await readGgufSummary(await openAsBlob(files.model));
  const stored = async (path: string) => {
    const size = (await stat(path)).size;
    return { fileId: path, name: basename(path), size, chunkSize: size, chunks: 1, complete: true };
  };
  const model = await stored(files.model);
  const projector = files.projector ? await stored(files.projector) : undefined;
  return {
    id,
    format: 'gguf',
    source: { kind: 'import', fileName: model.name },
    files: [model],
    ...(projector && { projector }),
    gguf,
    sizeBytes: model.size + (projector?.size ?? 0),
    createdAt: 0,
  };
}
