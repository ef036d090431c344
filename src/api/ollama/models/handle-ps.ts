import { jsonResponse } from '../../encoders/json-response.js';
import type { RouteContext } from '../../pipeline/route-context.js';
import { modelDetails } from './model-details.js';

/** `GET /api/ps`: the models in memory now. */
export async function handlePs(context: RouteContext): Promise<Response> {
  const models = await Promise.all(
    context.engine.loaded().map(async (loaded) => {
      const record = await context.store.get(loaded.model);
      const onGpu = loaded.info.backend === 'webgpu' && loaded.info.gpuLayers > 0;
      return {
        name: loaded.model,
        model: loaded.model,
        size: loaded.sizeBytes,
        digest: record?.digest ?? '',
        details: record === undefined ? undefined : modelDetails(record),
        expires_at: new Date(loaded.expiresAt).toISOString(),
        // The engine reports no per-device split: a GPU-backed model counts as wholly in VRAM.
        size_vram: onGpu ? loaded.sizeBytes : 0,
        context_length: loaded.contextLength,
      };
    }),
  );
  return jsonResponse({ models });
}
