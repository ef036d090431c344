import { assertAcceptsImages } from '../assert-accepts-images.js';
import { customizeRequest } from '../customize-request.js';
import { findModel } from '../find-model.js';
import { parseWire } from '../parse-wire.js';
import { readJsonBody } from '../read-json-body.js';
import type { RouteContext } from '../route-context.js';
import { answerOllama } from './answer-ollama.js';
import { chatRequestSchema } from './chat-request-schema.js';
import { chatRequestToGenerate, countChatImages } from './chat-request-to-generate.js';

/** `POST /api/chat`: the next assistant message as NDJSON (default) or one JSON object. */
export async function handleChat(context: RouteContext): Promise<Response> {
  const body = await readJsonBody(context.request, { maxBytes: context.maxBodyBytes });
  const wire = parseWire(chatRequestSchema, body);
  const record = await findModel(context.store, wire.model);
  assertAcceptsImages(context.engine, record, countChatImages(wire), 'messages');
  const request = customizeRequest(
    record,
    await chatRequestToGenerate(wire, record.id, { maxImageBytes: context.maxBodyBytes }),
    { clock: context.clock, options: wire.options ?? undefined },
  );
  return answerOllama(context, {
    kind: 'chat',
    model: record.id,
    request,
    empty: (wire.messages ?? []).length === 0,
    keepAlive: wire.keep_alive,
    stream: wire.stream,
  });
}
