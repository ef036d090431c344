import { isComplete } from '../../store/index.js';
import type { ModelRecord, ModelStore } from '../../store/index.js';
import { blobRecordId } from './blob-digest.js';

/**
 * A stored model whose file has the sha256 `hex`: an uploaded blob waiting for `/api/create`, or
 * else any complete model with that file (plain ones first), so a file imported once (in the page,
 * or by an earlier `create`) is never uploaded again.
 */
export async function findBlob(store: ModelStore, hex: string): Promise<ModelRecord | undefined> {
  const staged = await store.get(blobRecordId(hex));
  if (staged !== undefined && isComplete(staged)) return staged;
  const holders = (await store.list()).filter(
    (r) => isComplete(r) && r.files.length === 1 && (r.files[0]?.sha256 ?? r.digest) === hex,
  );
  return holders.find((r) => r.customization === undefined) ?? holders[0];
}
