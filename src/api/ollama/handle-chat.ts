import { assertAcceptsImages } from '../assert-accepts-images.js';
import { collectGeneration } from '../collect-generation.js';
import { customizeRequest } from '../customize-request.js';
import { findModel } from '../find-model.js';
import { jsonResponse } from '../json-response.js';
import { parseWire } from '../parse-wire.js';
import { readJsonBody } from '../read-json-body.js';
import type { RouteContext } from '../route-context.js';
import { startGeneration } from '../start-generation.js';
import { chatRequestSchema } from './chat-request-schema.js';
import { chatRequestToGenerate, countChatImages } from './chat-request-to-generate.js';
import { loadOrUnload } from './load-or-unload.js';
import { ndjsonResponse } from './ndjson-response.js';
import { encodeOllamaAnswer, encodeOllamaChunks } from './ollama-encoder.js';

/** `POST /api/chat`: the next assistant message as NDJSON (default) or one JSON object. */
export async function handleChat(context: RouteContext): Promise<Response> {
  const body = await readJsonBody(context.request, { maxBytes: context.maxBodyBytes });
  const wire = parseWire(chatRequestSchema, body);
  const record = await findModel(context.store, wire.model);
  assertAcceptsImages(context.engine, record, countChatImages(wire), 'messages');
  const request = customizeRequest(
    record,
    await chatRequestToGenerate(wire, record.id, { maxImageBytes: context.maxBodyBytes }),
    { clock: context.clock },
  );
  if ((wire.messages ?? []).length === 0) {
    return loadOrUnload(context, {
      kind: 'chat',
      model: record.id,
      keepAlive: wire.keep_alive,
      contextLength: request.contextLength,
    });
  }
  const events = await startGeneration(context.engine, request, context.signal);
  const options = { kind: 'chat', model: record.id, clock: context.clock } as const;
  if (wire.stream ?? true) {
    return ndjsonResponse(encodeOllamaChunks(options, events), {
      onCancel: (reason) => context.abort(reason),
    });
  }
  return jsonResponse(encodeOllamaAnswer(options, await collectGeneration(events)));
}
