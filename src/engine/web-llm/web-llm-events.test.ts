import type { ChatCompletionChunk, Completion } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import { LmtabError } from '../../errors/index.js';
import type { GenerateEvent } from '../engine.js';
import { createScriptedWebLlm } from '../testing/scripted-web-llm.js';
import { webLlmEvents } from './web-llm-events.js';

async function record(pieces: string[], maxTokens?: number): Promise<ChatCompletionChunk[]> {
  const scripted = createScriptedWebLlm(() => ({ pieces }));
  await scripted.engine.reload('m');
  const stream = await scripted.engine.chatCompletion({
    model: 'm',
    messages: [{ role: 'user', content: 'Hi' }],
    stream: true,
    stream_options: { include_usage: true },
    ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
  });
  const chunks: ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

async function collect(stream: AsyncIterable<ChatCompletionChunk | Completion>) {
  const events: GenerateEvent[] = [];
  for await (const event of webLlmEvents(stream, { started: 0, loadMs: 12, clock: () => 500 })) {
    events.push(event);
  }
  return events;
}

async function* replay<T>(chunks: T[]): AsyncGenerator<T> {
  yield* chunks;
}

describe('webLlmEvents on chunks web-llm’s own streaming code produced', () => {
  it('reads deltas, the final chunk and the usage chunk', async () => {
    const chunks = await record(['Hel', 'lo']);
    // The shapes web-llm 0.2.86 streams: deltas, an empty final delta with the finish reason,
    // then a usage chunk with no choices.
    expect(chunks.map((c) => ({ choices: c.choices, usage: c.usage }))).toEqual([
      {
        choices: [
          {
            delta: { content: 'Hel', role: 'assistant' },
            finish_reason: null,
            index: 0,
            logprobs: null,
          },
        ],
        usage: undefined,
      },
      {
        choices: [
          {
            delta: { content: 'lo', role: 'assistant' },
            finish_reason: null,
            index: 0,
            logprobs: null,
          },
        ],
        usage: undefined,
      },
      { choices: [{ delta: {}, finish_reason: 'stop', index: 0 }], usage: undefined },
      {
        choices: [],
        usage: {
          completion_tokens: 2,
          prompt_tokens: 9,
          total_tokens: 11,
          extra: expect.objectContaining({
            time_to_first_token_s: 0.25,
            time_per_output_token_s: 0.02,
          }),
        },
      },
    ]);
    expect(await collect(replay(chunks))).toEqual([
      { type: 'token', text: 'Hel' },
      { type: 'token', text: 'lo' },
      {
        type: 'done',
        finishReason: 'stop',
        usage: { promptTokens: 9, completionTokens: 2 },
        timings: { loadMs: 12, promptMs: 250, decodeMs: 20, totalMs: 500 },
      },
    ]);
  });

  it('maps finish reason "length"', async () => {
    const events = await collect(replay(await record(['a', 'b', 'c'], 1)));
    expect(events).toEqual([
      { type: 'token', text: 'a' },
      expect.objectContaining({ type: 'done', finishReason: 'length' }),
    ]);
  });

  it('turns an interrupted stream (finish reason "abort") into an aborted error', async () => {
    const chunks = await record(['a']);
    chunks[chunks.length - 2].choices[0].finish_reason = 'abort';
    const error = await collect(replay(chunks)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LmtabError);
    expect(error).toMatchObject({ code: 'aborted' });
  });

  it('reads text completion chunks and survives a stream without usage', async () => {
    const chunks: Completion[] = [
      {
        id: 'c',
        object: 'text_completion',
        created: 0,
        model: 'm',
        choices: [{ index: 0, text: ' Paris', finish_reason: null }],
      },
      {
        id: 'c',
        object: 'text_completion',
        created: 0,
        model: 'm',
        choices: [{ index: 0, text: '', finish_reason: 'stop' }],
      },
    ];
    expect(await collect(replay(chunks))).toEqual([
      { type: 'token', text: ' Paris' },
      {
        type: 'done',
        finishReason: 'stop',
        usage: { promptTokens: 0, completionTokens: 1 },
        timings: { loadMs: 12, promptMs: 0, decodeMs: 0, totalMs: 500 },
      },
    ]);
  });
});
