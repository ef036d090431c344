import { countOf, field, isText, type TokenReader } from '../token-reader.js';

/** Native `/api`: `eval_count`; text in `message.content` (chat) or `response` (generate). */
export const ollamaTokens: TokenReader = {
  reported: (value) => countOf(value.eval_count),
  carriesText: (value) => isText(field(value.message, 'content')) || isText(value.response),
};
