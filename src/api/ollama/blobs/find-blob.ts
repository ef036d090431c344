import { isComplete } from '../../../store/index.js';
import type { ModelRecord, ModelStore } from '../../../store/index.js';
import { blobRecordId } from '../../pipeline/blob-digest.js';

/**
 * A stored model whose one model file has the sha256 `hex`: an uploaded blob waiting for
 * `/api/create`, or else any complete model with that file, so a file imported once (in the page,
 * or by an earlier `create`) is never uploaded again. Only the file is lent: a create takes its
 * weights and nothing else of the record (see `ModelStore.compose`).
 */
export async function findBlob(store: ModelStore, hex: string): Promise<ModelRecord | undefined> {
  const staged = await store.get(blobRecordId(hex));
  if (staged !== undefined && isComplete(staged)) return staged;
  return (await store.list()).find(
    (r) => isComplete(r) && r.files.length === 1 && (r.files[0]?.sha256 ?? r.digest) === hex,
  );
}
