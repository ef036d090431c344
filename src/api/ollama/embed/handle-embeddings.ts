import { checkEmbeddingRequest } from '../../pipeline/embedding-dimensions.js';
import { findModel } from '../../pipeline/find-model.js';
import { jsonResponse } from '../../encoders/json-response.js';
import { parseWire } from '../../body/parse-wire.js';
import { readJsonBody } from '../../body/read-json-body.js';
import type { RouteContext } from '../../pipeline/route-context.js';
import { embeddingsRequestSchema } from './embeddings-request-schema.js';
import { runEmbed } from './run-embed.js';

/** `POST /api/embeddings` (Ollama's older endpoint): `{embedding}` for one `prompt`. */
export async function handleEmbeddings(context: RouteContext): Promise<Response> {
  const body = await readJsonBody(context.request, { maxBytes: context.maxBodyBytes });
  const wire = parseWire(embeddingsRequestSchema, body);
  const record = await findModel(context.store, wire.model);
  checkEmbeddingRequest(record, undefined);
  const prompt = wire.prompt ?? '';
  const result = await runEmbed(context, {
    model: record.id,
    inputs: prompt === '' ? [] : [prompt],
    truncate: true,
    keepAlive: wire.keep_alive,
    contextLength: wire.options?.num_ctx ?? undefined,
  });
  return jsonResponse({ embedding: Array.from(result.embeddings[0] ?? []) });
}
