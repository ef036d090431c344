import { isComplete } from '../../../store/index.js';
import { jsonResponse } from '../../encoders/json-response.js';
import type { RouteContext } from '../../pipeline/route-context.js';
import { isStagedBlob } from '../../pipeline/blob-digest.js';
import { modelDetails } from './model-details.js';

/** `GET /api/tags`: every complete stored model (not uploads waiting for a create), Ollama's way. */
export async function handleTags(context: RouteContext): Promise<Response> {
  const records = (await context.store.list()).filter((r) => isComplete(r) && !isStagedBlob(r));
  return jsonResponse({
    models: records.map((record) => ({
      name: record.id,
      model: record.id,
      modified_at: new Date(record.createdAt).toISOString(),
      size: record.sizeBytes,
      digest: record.digest ?? '',
      details: modelDetails(record),
    })),
  });
}
