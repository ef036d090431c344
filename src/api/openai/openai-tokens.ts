import { countOf, field, isText, type TokenReader } from '../pipeline/token-reader.js';

/**
 * Chat and text completions: `usage.completion_tokens`; text in `delta.content` or `text`.
 * Transcripts: `usage.output_tokens`; text in `transcript.text.delta` events.
 * Realtime sessions hold many answers and transcripts, each reporting its own usage: the session
 * counts their text deltas (one token each in lmtab's encoder), answers' and transcripts' alike.
 * Answers that generate nothing count what they read: embeddings and rerank their
 * `usage.prompt_tokens`, `/tokenize` its tokens.
 */
export const openAiTokens: TokenReader = {
  reported: (value) =>
    isRealtimeEvent(value)
      ? undefined
      : (countOf(field(value.usage, 'completion_tokens')) ??
        countOf(field(value.usage, 'output_tokens')) ??
        countOf(field(value.usage, 'prompt_tokens')) ??
        (Array.isArray(value.tokens) ? value.tokens.length : undefined)),
  carriesText(value) {
    const choice = field(value.choices, '0');
    if (value.type === 'transcript.text.delta') return isText(value.delta);
    if (isRealtimeEvent(value))
      return realtimeTextEvents.has(String(value.type)) && isText(value.delta);
    return isText(field(field(choice, 'delta'), 'content')) || isText(field(choice, 'text'));
  },
};

/** The Realtime server events whose `delta` is generated text. */
const realtimeTextEvents = new Set([
  'response.output_text.delta',
  'response.output_audio_transcript.delta',
  'conversation.item.input_audio_transcription.delta',
]);

/** Whether a value is a Realtime server event (they carry an `event_id`). */
function isRealtimeEvent(value: Record<string, unknown>): boolean {
  return typeof value.event_id === 'string' && typeof value.type === 'string';
}
