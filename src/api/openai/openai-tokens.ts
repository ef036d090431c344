import { countOf, field, isText, type TokenReader } from '../token-reader.js';

/** Chat and text completions: `usage.completion_tokens`; text in `delta.content` or `text`. */
export const openAiTokens: TokenReader = {
  reported: (value) => countOf(field(value.usage, 'completion_tokens')),
  carriesText(value) {
    const choice = field(value.choices, '0');
    return isText(field(field(choice, 'delta'), 'content')) || isText(field(choice, 'text'));
  },
};
