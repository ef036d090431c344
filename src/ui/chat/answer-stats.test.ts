import { describe, expect, it } from 'vitest';
import { answerStats } from './answer-stats.js';

describe('answerStats', () => {
  it('counts from the first piece to the last and keeps tool_calls as the finish', () => {
    const stats = answerStats(
      { started: 0, first: 500, last: 1500, end: 1600 },
      {
        pieces: 9,
        usage: { prompt_tokens: 30, completion_tokens: 11 },
        finishReason: 'tool_calls',
        stopped: false,
      },
    );
    expect(stats).toEqual({
      tokens: 11,
      promptTokens: 30,
      tokensPerSecond: 10,
      timeToFirstTokenMs: 500,
      totalMs: 1600,
      finishReason: 'tool_calls',
    });
  });

  it('has none for a failure before the first piece, and marks a stop', () => {
    const timing = { started: 0, first: 0, last: 0, end: 80 };
    expect(answerStats(timing, { pieces: 0, stopped: false })).toBeUndefined();
    expect(answerStats(timing, { pieces: 0, stopped: true })?.finishReason).toBe('stopped');
  });

  it('has stats for an answer that finished before any visible piece', () => {
    const stats = answerStats(
      { started: 0, first: 0, last: 0, end: 400 },
      {
        pieces: 0,
        usage: { prompt_tokens: 120, completion_tokens: 1 },
        finishReason: 'stop',
        stopped: false,
      },
    );
    expect(stats).toEqual({
      tokens: 1,
      promptTokens: 120,
      tokensPerSecond: 2.5,
      timeToFirstTokenMs: 400,
      totalMs: 400,
      finishReason: 'stop',
    });
  });
});
