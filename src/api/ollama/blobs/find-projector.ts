import { isComplete } from '../../../store/index.js';
import type { ModelStore } from '../../../store/index.js';
import type { ProjectorUploads } from '../../pipeline/route-context.js';

/** Where a vision projector's bytes are: uploaded and waiting, or a stored model's (to share). */
export type FoundProjector = { kind: 'upload'; blob: Blob } | { kind: 'stored'; holder: string };

/**
 * The vision projector with the sha256 `hex`: one uploaded and waiting, or one a stored model
 * already has (so it is never uploaded, nor stored, twice).
 */
export async function findProjector(
  store: ModelStore,
  uploads: ProjectorUploads,
  hex: string,
): Promise<FoundProjector | undefined> {
  const waiting = uploads.get(hex);
  if (waiting !== undefined) return { kind: 'upload', blob: waiting };
  const holder = (await store.list()).find((r) => isComplete(r) && r.projector?.sha256 === hex);
  return holder === undefined ? undefined : { kind: 'stored', holder: holder.id };
}
