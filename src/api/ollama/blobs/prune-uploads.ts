import { isComplete } from '../../../store/index.js';
import type { ModelStore } from '../../../store/index.js';
import { unusedUploadKeepMs } from '../../body/default-limits.js';
import { isStagedBlob } from '../../pipeline/blob-digest.js';
import type { ProjectorUploads } from '../../pipeline/route-context.js';

/** Options of {@link pruneUploads}. */
export interface PruneUploadsOptions {
  /** Epoch milliseconds now; default `Date.now`. */
  clock?: () => number;
  /** Milliseconds an upload waits for a create; default {@link unusedUploadKeepMs}. */
  keepMs?: number;
  /** The projectors a router holds in memory, pruned too; default none. */
  projectors?: ProjectorUploads;
}

/**
 * Removes the uploads to `/api/blobs` that no `/api/create` used within `keepMs` of their upload
 * (model files waiting as `sha256-HEX` records, and held projectors), as Ollama prunes blobs no
 * manifest names. Resolves to how many stored files it removed.
 */
export async function pruneUploads(
  store: ModelStore,
  { clock = Date.now, keepMs = unusedUploadKeepMs, projectors }: PruneUploadsOptions = {},
): Promise<number> {
  projectors?.prune();
  const now = clock();
  const stale = (await store.list()).filter(
    (record) => isStagedBlob(record) && isComplete(record) && now - record.createdAt >= keepMs,
  );
  for (const record of stale) await store.delete(record.id);
  return stale.length;
}
