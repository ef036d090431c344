import { assertAcceptsImages } from '../assert-accepts-images.js';
import { collectGeneration } from '../collect-generation.js';
import { customizeRequest } from '../customize-request.js';
import { findModel } from '../find-model.js';
import { jsonResponse } from '../json-response.js';
import { newId } from '../new-id.js';
import { parseWire } from '../parse-wire.js';
import { readJsonBody } from '../read-json-body.js';
import type { RouteContext } from '../route-context.js';
import { startGeneration } from '../start-generation.js';
import { chatCompletionRequestSchema } from './chat-completion-request-schema.js';
import { chatRequestToGenerate, countChatImages } from './chat-request-to-generate.js';
import { encodeChatCompletion, encodeChatCompletionChunks } from './chat-completion-encoder.js';
import { sseResponse } from './sse-response.js';

/** `POST /v1/chat/completions`: one chat answer, as JSON or as an SSE stream. */
export async function handleChatCompletions(context: RouteContext): Promise<Response> {
  const body = await readJsonBody(context.request, { maxBytes: context.maxBodyBytes });
  const wire = parseWire(chatCompletionRequestSchema, body);
  const record = await findModel(context.store, wire.model);
  // Before decoding, so that no image is fetched for a model that cannot read it.
  assertAcceptsImages(context.engine, record, countChatImages(wire), 'messages');
  const converted = await chatRequestToGenerate(wire, record.id, {
    fetch: context.fetch,
    signal: context.signal,
    maxImageBytes: context.maxBodyBytes,
  });
  const events = await startGeneration(
    context.engine,
    customizeRequest(record, converted, { clock: context.clock }),
    context.signal,
  );
  const meta = {
    id: newId('chatcmpl-'),
    created: Math.floor(context.clock() / 1000),
    model: record.id,
  };
  if (wire.stream === true) {
    const includeUsage = wire.stream_options?.include_usage === true;
    return sseResponse(encodeChatCompletionChunks(meta, events, { includeUsage }), {
      onCancel: (reason) => context.abort(reason),
    });
  }
  return jsonResponse(encodeChatCompletion(meta, await collectGeneration(events)));
}
