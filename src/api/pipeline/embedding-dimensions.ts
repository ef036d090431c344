import { assertCanEmbed } from '../../engine/index.js';
import { LmtabError } from '../../errors/index.js';
import type { ModelRecord } from '../../store/index.js';

/**
 * Checks a request's `dimensions` against the model before any work: the model's own dimension is
 * accepted; any other needs Matryoshka training (truncating then renormalizing is only meaningful
 * for such models), which no GGUF key records, so it is refused rather than faked. Also refuses a
 * model that cannot embed.
 */
export function checkEmbeddingRequest(
  record: ModelRecord,
  dimensions: number | null | undefined,
  param = 'dimensions',
): void {
  assertCanEmbed(record);
  if (dimensions === undefined || dimensions === null) return;
  const own = record.gguf.embeddingLength;
  if (own !== undefined && dimensions === own) return;
  throw new LmtabError(
    'invalid_request',
    `Model "${record.id}" makes ${own === undefined ? 'vectors of an unknown dimension' : `${own}-dimensional vectors`} ` +
      `and its GGUF declares no shorter (Matryoshka) dimensions: expected ${param} ` +
      `${own === undefined ? 'to be absent' : `absent or ${own}`}, received ${dimensions}.`,
    { param },
  );
}
