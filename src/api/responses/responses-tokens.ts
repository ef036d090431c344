import { countOf, field, isText, type TokenReader } from '../pipeline/token-reader.js';

/** Responses: `usage.output_tokens` of the response (or of `response.completed`'s); text deltas. */
export const responsesTokens: TokenReader = {
  reported: (value) =>
    countOf(field(value.usage, 'output_tokens')) ??
    countOf(field(field(value.response, 'usage'), 'output_tokens')),
  carriesText: (value) =>
    value.type === 'response.output_text.delta' || value.type === 'response.reasoning_text.delta'
      ? isText(value.delta)
      : false,
};
