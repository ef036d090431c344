import type { TurnStats } from './conversation.js';

/** When an answer's pieces arrived, in `performance.now()` milliseconds. */
export interface AnswerTiming {
  started: number;
  /** The first piece (text, reasoning or a call), 0 when none came. */
  first: number;
  /** The last piece, 0 when none came. */
  last: number;
  end: number;
}

/** What the answer's stream said about itself. */
export interface AnswerCounts {
  /** Chunks that carried something (the token count when usage is missing). */
  pieces: number;
  usage?: { prompt_tokens: number; completion_tokens: number };
  finishReason?: string;
  /** Whether the person stopped it. */
  stopped: boolean;
}

/**
 * An answer's stats: tokens per second from the first piece to the last (thinking and tool calls
 * count: they are tokens too), time to the first piece, and why it ended. An answer that finished
 * without a visible piece (the model's first token ended it) still has stats; undefined only when
 * nothing arrived and the stream neither finished nor was stopped (a failure shows no stats).
 */
export function answerStats(timing: AnswerTiming, counts: AnswerCounts): TurnStats | undefined {
  const { started, first, last, end } = timing;
  if (first === 0 && !counts.stopped && counts.finishReason === undefined) return undefined;
  const tokens = counts.usage?.completion_tokens ?? counts.pieces;
  const decodeSeconds = (last - first) / 1000;
  const finish = counts.finishReason;
  return {
    tokens,
    promptTokens: counts.usage?.prompt_tokens,
    // Tokens after the first, over the time between the first and the last.
    tokensPerSecond:
      tokens > 1 && decodeSeconds > 0
        ? (tokens - 1) / decodeSeconds
        : tokens / Math.max((end - started) / 1000, 1e-3),
    timeToFirstTokenMs: first > 0 ? first - started : end - started,
    totalMs: end - started,
    finishReason: counts.stopped
      ? 'stopped'
      : finish === 'length' || finish === 'tool_calls'
        ? finish
        : 'stop',
  };
}
