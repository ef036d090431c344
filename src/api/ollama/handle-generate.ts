import { assertAcceptsImages } from '../assert-accepts-images.js';
import { customizeRequest } from '../customize-request.js';
import { findModel } from '../find-model.js';
import { parseWire } from '../parse-wire.js';
import { readJsonBody } from '../read-json-body.js';
import type { RouteContext } from '../route-context.js';
import { answerOllama } from './answer-ollama.js';
import { generateRequestSchema } from './generate-request-schema.js';
import { generateRequestToGenerate } from './generate-request-to-generate.js';

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
    { clock: context.clock, options: wire.options ?? undefined },
  );
  return answerOllama(context, {
    kind: 'generate',
    model: record.id,
    request,
    empty: (wire.prompt ?? '') === '' && imageCount === 0,
    keepAlive: wire.keep_alive,
    stream: wire.stream,
  });
}
