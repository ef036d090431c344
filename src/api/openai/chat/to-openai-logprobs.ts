import type { SampledLogprob, TokenLogprob } from '../../../engine/index.js';
import type {
  OpenAiChatLogprobs,
  OpenAiTextLogprobs,
  OpenAiTokenLogprob,
} from '../response-types.js';

function token(entry: TokenLogprob): OpenAiTokenLogprob {
  return { token: entry.token, logprob: entry.logprob, bytes: entry.bytes };
}

/** The engine's per-token log probabilities as a chat answer's `logprobs`. */
export function toChatLogprobs(entries: readonly SampledLogprob[]): OpenAiChatLogprobs {
  return {
    content: entries.map((entry) => ({ ...token(entry), top_logprobs: entry.top.map(token) })),
    refusal: null,
  };
}

/**
 * The engine's per-token log probabilities in the legacy completions shape; `textOffset` is where
 * the first token starts in the whole answer (streams pass the length sent so far).
 */
export function toTextLogprobs(
  entries: readonly SampledLogprob[],
  textOffset = 0,
): OpenAiTextLogprobs {
  let offset = textOffset;
  const text_offset: number[] = [];
  for (const entry of entries) {
    text_offset.push(offset);
    offset += entry.token.length;
  }
  return {
    tokens: entries.map((entry) => entry.token),
    token_logprobs: entries.map((entry) => entry.logprob),
    top_logprobs: entries.map((entry) =>
      Object.fromEntries(entry.top.map((alternative) => [alternative.token, alternative.logprob])),
    ),
    text_offset,
  };
}
