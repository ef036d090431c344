import { assertAcceptsImages } from '../assert-accepts-images.js';
import { collectGeneration } from '../collect-generation.js';
import { customizeRequest } from '../customize-request.js';
import { findModel } from '../find-model.js';
import { jsonResponse } from '../json-response.js';
import { parseWire } from '../parse-wire.js';
import { readJsonBody } from '../read-json-body.js';
import type { RouteContext } from '../route-context.js';
import { startGeneration } from '../start-generation.js';
import { generateRequestSchema } from './generate-request-schema.js';
import { generateRequestToGenerate } from './generate-request-to-generate.js';
import { loadOrUnload } from './load-or-unload.js';
import { ndjsonResponse } from './ndjson-response.js';
import { encodeOllamaAnswer, encodeOllamaChunks } from './ollama-encoder.js';

/** `POST /api/generate`: a completion as NDJSON (default) or one JSON object. */
export async function handleGenerate(context: RouteContext): Promise<Response> {
  const body = await readJsonBody(context.request, { maxBytes: context.maxBodyBytes });
  const wire = parseWire(generateRequestSchema, body);
  const record = await findModel(context.store, wire.model);
  const imageCount = wire.images?.length ?? 0;
  assertAcceptsImages(context.engine, record, imageCount, 'images');
  const request = customizeRequest(
    record,
    await generateRequestToGenerate(wire, record.id, { maxImageBytes: context.maxBodyBytes }),
    { clock: context.clock },
  );
  if ((wire.prompt ?? '') === '' && imageCount === 0) {
    return loadOrUnload(context, {
      kind: 'generate',
      model: record.id,
      keepAlive: wire.keep_alive,
      contextLength: request.contextLength,
    });
  }
  const events = await startGeneration(context.engine, request, context.signal);
  const options = { kind: 'generate', model: record.id, clock: context.clock } as const;
  if (wire.stream ?? true) {
    return ndjsonResponse(encodeOllamaChunks(options, events), {
      onCancel: (reason) => context.abort(reason),
    });
  }
  return jsonResponse(encodeOllamaAnswer(options, await collectGeneration(events)));
}
