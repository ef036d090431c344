import { LmtabError } from '../../../errors/index.js';
import type { RouteContext } from '../../pipeline/route-context.js';
import { parseBlobDigest } from '../../pipeline/blob-digest.js';
import { findBlob } from './find-blob.js';
import { findProjector } from './find-projector.js';
import { pruneUploads } from './prune-uploads.js';

/** `HEAD /api/blobs/sha256:HEX`: 200 when a model or projector file with that digest is held, else 404. */
export async function handleBlobExists(context: RouteContext): Promise<Response> {
  const hex = parseBlobDigest(context.params.id ?? '');
  await pruneUploads(context.store, {
    clock: context.clock,
    projectors: context.projectorUploads,
  });
  const known =
    (await findBlob(context.store, hex)) ??
    (await findProjector(context.store, context.projectorUploads, hex));
  if (known === undefined) {
    throw new LmtabError('not_found', `No model file with digest sha256:${hex} is stored.`);
  }
  return new Response(null, { status: 200 });
}
