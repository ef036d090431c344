import { countOf, field, isText, type TokenReader } from '../pipeline/token-reader.js';

/** Messages: `usage.output_tokens` (of the message, or of `message_delta`); text and thinking deltas. */
export const anthropicTokens: TokenReader = {
  reported: (value) => countOf(field(value.usage, 'output_tokens')),
  carriesText: (value) =>
    value.type === 'content_block_delta' &&
    (isText(field(value.delta, 'text')) || isText(field(value.delta, 'thinking'))),
};
