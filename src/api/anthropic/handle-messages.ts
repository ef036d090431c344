import { jsonResponse } from '../encoders/json-response.js';
import { newId } from '../encoders/new-id.js';
import { imageOptions, protocolHandler } from '../pipeline/protocol-handler.js';
import { anthropicSseResponse } from './anthropic-sse-response.js';
import { collectMessage, encodeMessageEvents } from './messages-encoder.js';
import { messagesRequestSchema } from './messages-request-schema.js';
import { countAnthropicImages, messagesRequestToGenerate } from './messages-request-to-generate.js';

/**
 * `POST /v1/messages` (Anthropic's Messages API): one answer as a `message`, or as Anthropic's
 * event stream. The `x-api-key` and `anthropic-version` headers are accepted (keys are checked by
 * the relay beyond loopback; every version gets the same answers).
 */
export const handleMessages = protocolHandler({
  schema: messagesRequestSchema,
  images: (wire) => ({ count: countAnthropicImages(wire), param: 'messages' }),
  convert: async (wire, record, context) => ({
    request: await messagesRequestToGenerate(wire, record.id, imageOptions(context)),
  }),
  async answer({ wire, record, start }, context) {
    const events = await start();
    const meta = { id: newId('msg_'), model: record.id };
    if (wire.stream === true) {
      return anthropicSseResponse(encodeMessageEvents(meta, events), (reason) =>
        context.abort(reason),
      );
    }
    return jsonResponse(await collectMessage(meta, events));
  },
});
