import { protocolHandler } from '../../pipeline/protocol-handler.js';
import { answerOllama } from './answer-ollama.js';
import { chatRequestSchema } from './chat-request-schema.js';
import { chatRequestToGenerate, countChatImages } from './chat-request-to-generate.js';

/** `POST /api/chat`: the next assistant message as NDJSON (default) or one JSON object. */
export const handleChat = protocolHandler({
  schema: chatRequestSchema,
  images: (wire) => ({ count: countChatImages(wire), param: 'messages' }),
  convert: async (wire, record, context) => ({
    request: await chatRequestToGenerate(wire, record.id, {
      maxImageBytes: context.maxBodyBytes,
    }),
  }),
  options: (wire) => wire.options ?? undefined,
  answer: ({ wire, record, request, start }, context) =>
    answerOllama(context, {
      kind: 'chat',
      model: record.id,
      request,
      start,
      empty: (wire.messages ?? []).length === 0,
      keepAlive: wire.keep_alive,
      stream: wire.stream,
    }),
});
