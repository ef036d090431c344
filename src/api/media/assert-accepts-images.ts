import { LmtabError } from '../../errors/index.js';
import type { Engine } from '../../engine/index.js';
import type { ModelRecord } from '../../store/index.js';

/** Refuses (400) images sent to a model that has no vision projector. */
export function assertAcceptsImages(
  engine: Engine,
  record: ModelRecord,
  imageCount: number,
  param: string,
): void {
  if (imageCount === 0 || engine.supportsImages(record)) return;
  throw new LmtabError(
    'invalid_request',
    `Model "${record.id}" cannot read images: it has no vision projector (mmproj), and the request ` +
      `has ${imageCount} ${imageCount === 1 ? 'image' : 'images'}. Attach a projector to the model ` +
      'or send text only.',
    { param },
  );
}
