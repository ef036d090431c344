import { collectGeneration } from '../../pipeline/collect-generation.js';
import { jsonResponse } from '../../encoders/json-response.js';
import { newId } from '../../encoders/new-id.js';
import { imageOptions, protocolHandler } from '../../pipeline/protocol-handler.js';
import { chatCompletionRequestSchema } from './chat-completion-request-schema.js';
import { chatRequestToGenerate, countChatImages } from './chat-request-to-generate.js';
import { encodeChatCompletion, encodeChatCompletionChunks } from './chat-completion-encoder.js';
import { sseResponse } from './sse-response.js';

/** `POST /v1/chat/completions`: one chat answer, as JSON or as an SSE stream. */
export const handleChatCompletions = protocolHandler({
  schema: chatCompletionRequestSchema,
  // Checked before decoding, so that no image is fetched for a model that cannot read it.
  images: (wire) => ({ count: countChatImages(wire), param: 'messages' }),
  convert: async (wire, record, context) => ({
    request: await chatRequestToGenerate(wire, record.id, imageOptions(context)),
  }),
  async answer({ wire, record, start }, context) {
    const events = await start();
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
  },
});
