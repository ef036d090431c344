import { isComplete } from '../../store/index.js';
import type { ModelStore } from '../../store/index.js';
import type { ProjectorUploads } from './projector-uploads.js';

/**
 * The bytes of a vision projector with the sha256 `hex`: one uploaded and waiting, or one a stored
 * model already has (so it is never uploaded twice).
 */
export async function findProjector(
  store: ModelStore,
  uploads: ProjectorUploads,
  hex: string,
): Promise<Blob | undefined> {
  const waiting = uploads.get(hex);
  if (waiting !== undefined) return waiting;
  const holder = (await store.list()).find((r) => isComplete(r) && r.projector?.sha256 === hex);
  return holder === undefined ? undefined : (await store.open(holder.id)).projector;
}
