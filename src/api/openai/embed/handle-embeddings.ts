import { checkEmbeddingRequest } from '../../pipeline/embedding-dimensions.js';
import { findModel } from '../../pipeline/find-model.js';
import { jsonResponse } from '../../encoders/json-response.js';
import { parseWire } from '../../body/parse-wire.js';
import { readJsonBody } from '../../body/read-json-body.js';
import type { RouteContext } from '../../pipeline/route-context.js';
import { embeddingRequestSchema } from './embedding-request-schema.js';
import { embeddingRequestToEmbed } from './embedding-request-to-embed.js';
import { encodeEmbeddings } from './encode-embeddings.js';

/** `POST /v1/embeddings`: one vector per input, in input order, as floats or base64. */
export async function handleEmbeddings(context: RouteContext): Promise<Response> {
  const body = await readJsonBody(context.request, { maxBytes: context.maxBodyBytes });
  const wire = parseWire(embeddingRequestSchema, body);
  const record = await findModel(context.store, wire.model);
  checkEmbeddingRequest(record, wire.dimensions);
  const result = await context.engine.embed(embeddingRequestToEmbed(wire, record.id), {
    signal: context.signal,
  });
  return jsonResponse(encodeEmbeddings(record.id, result, wire.encoding_format ?? 'float'));
}
