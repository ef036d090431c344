import { countOf, field, isText, type TokenReader } from '../token-reader.js';

/**
 * Chat and text completions: `usage.completion_tokens`; text in `delta.content` or `text`.
 * Transcripts: `usage.output_tokens`; text in `transcript.text.delta` events.
 * Answers that generate nothing count what they read: embeddings and rerank their
 * `usage.prompt_tokens`, `/tokenize` its tokens.
 */
export const openAiTokens: TokenReader = {
  reported: (value) =>
    countOf(field(value.usage, 'completion_tokens')) ??
    countOf(field(value.usage, 'output_tokens')) ??
    countOf(field(value.usage, 'prompt_tokens')) ??
    (Array.isArray(value.tokens) ? value.tokens.length : undefined),
  carriesText(value) {
    const choice = field(value.choices, '0');
    if (value.type === 'transcript.text.delta') return isText(value.delta);
    return isText(field(field(choice, 'delta'), 'content')) || isText(field(choice, 'text'));
  },
};
