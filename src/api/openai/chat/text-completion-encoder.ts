import type { GenerateEvent } from '../../../engine/index.js';
import type { CollectedGeneration } from '../../pipeline/collect-generation.js';
import { sseDone } from '../../encoders/sse-encoder.js';
import { missingDone } from '../../pipeline/start-generation.js';
import type { AnswerMeta, TextCompletion } from '../response-types.js';
import { toTextLogprobs } from './to-openai-logprobs.js';
import { toOpenAiUsage } from './to-openai-usage.js';

/** Options of {@link encodeTextCompletionChunks}. */
export interface TextChunkOptions {
  /** Send a last chunk with `usage` and no choices (`stream_options.include_usage`). */
  includeUsage: boolean;
}

/** A whole `text_completion` answer. */
export function encodeTextCompletion(
  meta: AnswerMeta,
  output: CollectedGeneration,
): TextCompletion {
  return {
    ...meta,
    object: 'text_completion',
    choices: [
      {
        index: 0,
        text: output.text,
        logprobs: output.logprobs === undefined ? null : toTextLogprobs(output.logprobs),
        finish_reason: output.done.finishReason,
      },
    ],
    usage: toOpenAiUsage(output.done.usage),
  };
}

/**
 * The `text_completion` events of a streamed answer: one per token, one with `finish_reason`, the
 * usage chunk when asked for, then {@link sseDone}.
 */
export async function* encodeTextCompletionChunks(
  meta: AnswerMeta,
  events: AsyncIterable<GenerateEvent>,
  options: TextChunkOptions,
): AsyncGenerator<TextCompletion | typeof sseDone> {
  const usage = options.includeUsage ? { usage: null } : {};
  const chunk = (
    text: string,
    finishReason: TextCompletion['choices'][number]['finish_reason'] = null,
    logprobs: TextCompletion['choices'][number]['logprobs'] = null,
  ): TextCompletion => ({
    ...meta,
    object: 'text_completion',
    choices: [{ index: 0, text, logprobs, finish_reason: finishReason }],
    ...usage,
  });
  let sent = 0;
  for await (const event of events) {
    if (event.type === 'token') {
      if (event.logprobs !== undefined) {
        yield chunk(event.text, null, toTextLogprobs(event.logprobs, sent));
      } else if (event.text !== '') {
        yield chunk(event.text);
      }
      sent += event.text.length;
      continue;
    }
    // A raw prompt has no chat template, so no reasoning or tool calls to report.
    if (event.type !== 'done') continue;
    yield chunk('', event.finishReason);
    if (options.includeUsage) {
      yield { ...meta, object: 'text_completion', choices: [], usage: toOpenAiUsage(event.usage) };
    }
    yield sseDone;
    return;
  }
  throw missingDone();
}
