import type { ChatCompletionChunk, Completion, CompletionUsage } from '@mlc-ai/web-llm';
import { LmtabError } from '../../errors/index.js';
import type { FinishReason, GenerateEvent } from '../engine.js';

/** Options of {@link webLlmEvents}. */
export interface WebLlmEventsOptions {
  /** Epoch milliseconds when the request arrived (for `totalMs`). */
  started: number;
  /** Milliseconds spent loading the model for this request. */
  loadMs: number;
  /** Clock in epoch milliseconds. */
  clock: () => number;
  /** The request's signal: an interrupted stream is an abort, not an answer. */
  signal?: AbortSignal;
}

/**
 * web-llm's streamed chunks (chat or text completion) as lmtab's generate events: a `token` per
 * non-empty delta, then `done` with usage and timings from web-llm's final usage chunk
 * (`stream_options.include_usage`). A stream web-llm stopped with `interruptGenerate()` (finish
 * reason `abort`) ends in an `aborted` error.
 */
export async function* webLlmEvents(
  stream: AsyncIterable<ChatCompletionChunk | Completion>,
  options: WebLlmEventsOptions,
): AsyncGenerator<GenerateEvent> {
  let finishReason: FinishReason = 'stop';
  let interrupted = false;
  let usage: CompletionUsage | undefined;
  let pieces = 0;
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    const text = choice === undefined ? '' : 'delta' in choice ? choice.delta.content : choice.text;
    if (text) {
      pieces += 1;
      yield { type: 'token', text };
    }
    // `tool_calls` ends like `stop`: lmtab passes no tools to web-llm.
    if (choice?.finish_reason === 'length') finishReason = 'length';
    if (choice?.finish_reason === 'abort') interrupted = true;
    if (chunk.usage) usage = chunk.usage;
  }
  if (interrupted || options.signal?.aborted) {
    throw new LmtabError('aborted', 'The request was aborted by the client.');
  }
  const completionTokens = usage?.completion_tokens ?? pieces;
  // web-llm samples the first token at the end of prefill; the rest are decode steps.
  const decodeSteps = Math.max(completionTokens - 1, 0);
  yield {
    type: 'done',
    finishReason,
    usage: { promptTokens: usage?.prompt_tokens ?? 0, completionTokens },
    timings: {
      loadMs: options.loadMs,
      promptMs: (usage?.extra.time_to_first_token_s ?? 0) * 1000,
      decodeMs: (usage?.extra.time_per_output_token_s ?? 0) * decodeSteps * 1000,
      totalMs: options.clock() - options.started,
    },
  };
}
