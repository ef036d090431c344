import { countOf, field, isText, type TokenReader } from '../pipeline/token-reader.js';

/**
 * Native `/api`: `eval_count`; text in `message.content` (chat) or `response` (generate).
 * Embeddings generate nothing and count what they read: `prompt_eval_count`.
 */
export const ollamaTokens: TokenReader = {
  reported: (value) => countOf(value.eval_count) ?? countOf(value.prompt_eval_count),
  carriesText: (value) => isText(field(value.message, 'content')) || isText(value.response),
};
