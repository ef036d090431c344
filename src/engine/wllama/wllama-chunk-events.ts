import type { GenerateEvent, SampledLogprob, TokenLogprob } from '../engine.js';

/**
 * One token's log probability as llama-server writes it: `logprob` and `top_logprobs`, or, with
 * `post_sampling_probs`, `prob` and `top_probs`.
 */
interface WireLogprob {
  token?: string;
  logprob?: number;
  prob?: number;
  bytes?: number[] | null;
  top_logprobs?: WireLogprob[];
  top_probs?: WireLogprob[];
}

/** What llama-server's streamed chunks carry that lmtab reads (wllama's types lag the server's JSON). */
export interface WllamaChunk {
  choices?: Array<{
    delta?: {
      content?: string | null;
      reasoning_content?: string | null;
      tool_calls?: Array<{
        index?: number;
        id?: string;
        function?: { name?: string; arguments?: string };
      }>;
    };
    text?: string;
    finish_reason?: string | null;
    logprobs?: { content?: WireLogprob[] | null } | null;
  }>;
  usage?: {
    prompt_tokens: number;
    completion_tokens: number;
    prompt_tokens_details?: { cached_tokens?: number };
  } | null;
  /** llama-server's own result, sent with the last chunk when the request asks `verbose`. */
  __verbose?: { stop_type?: string; stopping_word?: string };
  timings?: {
    /** Prompt tokens reused from the slot's cache; `prompt_n` counts only those processed. */
    cache_n?: number;
    prompt_n: number;
    prompt_ms: number;
    predicted_n: number;
    predicted_ms: number;
  };
}

function toTokenLogprob(wire: WireLogprob): TokenLogprob {
  const token = wire.token ?? '';
  return {
    token,
    logprob: wire.logprob ?? Math.log(wire.prob ?? 0),
    bytes: wire.bytes ?? [...new TextEncoder().encode(token)],
  };
}

/** Converts llama-server's logprob entries, keeping `top` alternatives of each. */
export function toSampledLogprobs(entries: readonly WireLogprob[], top: number): SampledLogprob[] {
  return entries.map((entry) => ({
    ...toTokenLogprob(entry),
    top: (entry.top_logprobs ?? entry.top_probs ?? []).slice(0, top).map(toTokenLogprob),
  }));
}

/** Options of {@link chunkEvents}. */
export interface ChunkEventsOptions {
  /** Alternatives per token to keep when logprobs were asked for; none were asked when absent. */
  topLogprobs?: number;
}

/**
 * The generate events one streamed chunk holds, in order: reasoning, then text (with its
 * logprobs), then tool-call pieces. llama.cpp streams a call's id and name in its first piece.
 */
export function chunkEvents(chunk: WllamaChunk, options: ChunkEventsOptions = {}): GenerateEvent[] {
  const choice = chunk.choices?.[0];
  if (choice === undefined) return [];
  const events: GenerateEvent[] = [];
  const delta = choice.delta;
  const reasoning = delta?.reasoning_content;
  if (typeof reasoning === 'string' && reasoning !== '') {
    events.push({ type: 'reasoning', text: reasoning });
  }
  const text = delta?.content ?? choice.text ?? '';
  const wireLogprobs = choice.logprobs?.content;
  const logprobs =
    options.topLogprobs !== undefined && Array.isArray(wireLogprobs) && wireLogprobs.length > 0
      ? toSampledLogprobs(wireLogprobs, options.topLogprobs)
      : undefined;
  if (text !== '' || logprobs !== undefined) {
    events.push(
      logprobs === undefined ? { type: 'token', text } : { type: 'token', text, logprobs },
    );
  }
  for (const [position, call] of (delta?.tool_calls ?? []).entries()) {
    events.push({
      type: 'tool_call',
      index: call.index ?? position,
      ...(call.id === undefined ? {} : { id: call.id }),
      ...(call.function?.name === undefined ? {} : { name: call.function.name }),
      argumentsDelta: call.function?.arguments ?? '',
    });
  }
  return events;
}
