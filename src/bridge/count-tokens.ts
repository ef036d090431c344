// For the tab's request log only: how many tokens an answer carried, read from its own bytes.
import { createNdjsonDecoder, createSseDecoder } from '../streams/index.js';
import type { StreamDecoder } from '../streams/index.js';

/** Largest JSON answer read for its usage; bigger ones are not counted. */
const maxJsonBytes = 1024 * 1024;

/** The fields of every protocol's answer (or stream event) that count its tokens or carry text. */
interface Answer {
  type?: unknown;
  /** OpenAI's `completion_tokens`; Anthropic's and Responses' `output_tokens`. */
  usage?: { completion_tokens?: unknown; output_tokens?: unknown } | null;
  /** A Responses `response.completed` event's response. */
  response?: unknown;
  eval_count?: unknown;
  message?: { content?: unknown };
  choices?: { delta?: { content?: unknown }; text?: unknown }[];
  delta?: unknown;
}

/** The token count an answer reports itself (OpenAI and Anthropic `usage`, native `eval_count`). */
function reported(value: Answer): number | undefined {
  const nested =
    typeof value.response === 'object' && value.response !== null
      ? reported(value.response as Answer)
      : undefined;
  const count =
    value.usage?.completion_tokens ?? value.usage?.output_tokens ?? value.eval_count ?? nested;
  return typeof count === 'number' ? count : undefined;
}

/** Whether a stream event carries generated text (one token per event in lmtab's encoders). */
function carriesText(value: Answer): boolean {
  const choice = value.choices?.[0];
  const delta = value.delta as { text?: unknown; thinking?: unknown } | string | undefined;
  const text =
    choice?.delta?.content ??
    choice?.text ??
    value.message?.content ??
    (typeof value.response === 'string' ? value.response : undefined) ??
    (typeof delta === 'string' ? delta : (delta?.text ?? delta?.thinking));
  return typeof text === 'string' && text !== '';
}

/** A running count of the tokens in an answer of `contentType`, fed its body piece by piece. */
export interface TokenCounter {
  push(chunk: Uint8Array): void;
  /** The usage the answer reported, else the text events seen; undefined when unknown. */
  result(): number | undefined;
}

/**
 * Counts tokens of a JSON, SSE (`/v1` streams: chat, completions, Responses, Messages) or NDJSON
 * (`/api` streams) answer.
 */
export function createTokenCounter(contentType: string): TokenCounter {
  let bytes = 0;
  let events = 0;
  let usage: number | undefined;
  const read = (payload: string) => {
    if (!payload.startsWith('{')) return;
    try {
      const value = JSON.parse(payload) as Answer;
      usage = reported(value) ?? usage;
      if (carriesText(value)) events += 1;
    } catch {
      // A payload that is not JSON carries no count.
    }
  };
  const decoder: StreamDecoder | undefined = contentType.startsWith('text/event-stream')
    ? createSseDecoder((event) => read(event.data))
    : contentType.startsWith('application/x-ndjson')
      ? createNdjsonDecoder(read)
      : undefined;
  const json = contentType.startsWith('application/json');
  const text = new TextDecoder();
  let whole = '';

  return {
    push(chunk) {
      bytes += chunk.byteLength;
      if (decoder !== undefined) decoder.push(chunk);
      else if (json && bytes <= maxJsonBytes) whole += text.decode(chunk, { stream: true });
    },
    result() {
      if (decoder !== undefined) {
        decoder.end();
        return usage ?? (events > 0 ? events : undefined);
      }
      if (!json || bytes > maxJsonBytes) return undefined;
      try {
        return reported(JSON.parse(whole) as Answer);
      } catch {
        return undefined;
      }
    },
  };
}
