import { assertAcceptsImages } from '../assert-accepts-images.js';
import { customizeRequest } from '../customize-request.js';
import { findModel } from '../find-model.js';
import { jsonResponse } from '../json-response.js';
import { newId } from '../new-id.js';
import { parseWire } from '../parse-wire.js';
import { readJsonBody } from '../read-json-body.js';
import type { RouteContext } from '../route-context.js';
import { startGeneration } from '../start-generation.js';
import { anthropicSseResponse } from './anthropic-sse-response.js';
import { collectMessage, encodeMessageEvents } from './messages-encoder.js';
import { messagesRequestSchema } from './messages-request-schema.js';
import { countAnthropicImages, messagesRequestToGenerate } from './messages-request-to-generate.js';

/**
 * `POST /v1/messages` (Anthropic's Messages API): one answer as a `message`, or as Anthropic's
 * event stream. The `x-api-key` and `anthropic-version` headers are accepted (keys are checked by
 * the relay beyond loopback; every version gets the same answers).
 */
export async function handleMessages(context: RouteContext): Promise<Response> {
  const body = await readJsonBody(context.request, { maxBytes: context.maxBodyBytes });
  const wire = parseWire(messagesRequestSchema, body);
  const record = await findModel(context.store, wire.model);
  assertAcceptsImages(context.engine, record, countAnthropicImages(wire), 'messages');
  const converted = await messagesRequestToGenerate(wire, record.id, {
    fetch: context.fetch,
    signal: context.signal,
    maxImageBytes: context.maxBodyBytes,
  });
  const events = await startGeneration(
    context.engine,
    customizeRequest(record, converted, { clock: context.clock }),
    context.signal,
  );
  const meta = { id: newId('msg_'), model: record.id };
  if (wire.stream === true) {
    return anthropicSseResponse(encodeMessageEvents(meta, events), (reason) =>
      context.abort(reason),
    );
  }
  return jsonResponse(await collectMessage(meta, events));
}
