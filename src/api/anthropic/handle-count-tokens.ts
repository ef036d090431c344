import { jsonResponse } from '../encoders/json-response.js';
import { imageOptions, protocolHandler } from '../pipeline/protocol-handler.js';
import { countTokensRequestSchema } from './messages-request-schema.js';
import { anthropicPromptToGenerate, countAnthropicImages } from './messages-request-to-generate.js';

/**
 * `POST /v1/messages/count_tokens`: `{input_tokens}`, the prompt as the model reads it (its own
 * tokenizer and chat template, system, tools and images included).
 */
export const handleCountTokens = protocolHandler({
  schema: countTokensRequestSchema,
  images: (wire) => ({ count: countAnthropicImages(wire), param: 'messages' }),
  convert: async (wire, record, context) => ({
    request: await anthropicPromptToGenerate(wire, record.id, imageOptions(context)),
  }),
  async answer({ request }, context) {
    const inputTokens = await context.engine.countTokens(request, { signal: context.signal });
    return jsonResponse({ input_tokens: inputTokens });
  },
});
