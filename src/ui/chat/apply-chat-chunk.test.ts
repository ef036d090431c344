import { describe, expect, it } from 'vitest';
import { applyChatChunk, emptyAnswer, type ChatChunk } from './apply-chat-chunk.js';

const delta = (d: NonNullable<NonNullable<ChatChunk['choices']>[0]['delta']>): ChatChunk => ({
  choices: [{ delta: d, finish_reason: null }],
});

describe('applyChatChunk', () => {
  it('assembles tool calls by index from OpenAI-style pieces', () => {
    const answer = emptyAnswer();
    const chunks: ChatChunk[] = [
      delta({ role: 'assistant', content: null } as never),
      delta({
        tool_calls: [
          {
            index: 0,
            id: 'call_a',
            type: 'function',
            function: { name: 'get_weather', arguments: '' },
          },
        ],
      }),
      delta({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      delta({
        tool_calls: [
          { index: 1, id: 'call_b', type: 'function', function: { name: 'now', arguments: '{}' } },
        ],
      }),
      delta({ tool_calls: [{ index: 0, function: { arguments: ' "Paris"}' } }] }),
      { choices: [{ delta: {}, finish_reason: 'tool_calls' }] },
      { choices: [], usage: { prompt_tokens: 40, completion_tokens: 12 } },
    ];
    const shown = chunks.map((c) => applyChatChunk(answer, c));
    expect(shown).toEqual([false, true, true, true, true, false, false]);
    expect(answer).toEqual({
      content: '',
      reasoning: '',
      toolCalls: [
        { id: 'call_a', name: 'get_weather', arguments: '{"city": "Paris"}' },
        { id: 'call_b', name: 'now', arguments: '{}' },
      ],
      finishReason: 'tool_calls',
      usage: { prompt_tokens: 40, completion_tokens: 12 },
      pieces: 4,
    });
  });

  it('keeps reasoning apart from the answer text', () => {
    const answer = emptyAnswer();
    for (const c of [
      delta({ reasoning_content: 'The user greets. ' }),
      delta({ reasoning_content: 'Greet back.' }),
      delta({ content: 'Hello', reasoning_content: null }),
      delta({ content: '!' }),
      { choices: [{ delta: {}, finish_reason: 'stop' }] },
    ]) {
      applyChatChunk(answer, c);
    }
    expect(answer).toMatchObject({
      reasoning: 'The user greets. Greet back.',
      content: 'Hello!',
      finishReason: 'stop',
      pieces: 4,
    });
  });

  it('throws the error a stream ends with, with its code', () => {
    expect(() =>
      applyChatChunk(emptyAnswer(), {
        error: {
          message: 'The prompt is 9000 tokens; the context holds 4096.',
          code: 'context_length_exceeded',
        },
      }),
    ).toThrow('The prompt is 9000 tokens; the context holds 4096. (context_length_exceeded)');
  });
});
