import type { GenerateEvent } from '../../engine/index.js';
import type { CollectedGeneration } from '../collect-generation.js';
import { sseDone } from '../sse-encoder.js';
import { missingDone } from '../start-generation.js';
import type { AnswerMeta, ChatCompletion, ChatCompletionChunk } from './response-types.js';
import { toOpenAiUsage } from './to-openai-usage.js';

/** Options of {@link encodeChatCompletionChunks}. */
export interface ChatChunkOptions {
  /** Send a last chunk with `usage` and no choices (`stream_options.include_usage`). */
  includeUsage: boolean;
}

/** A whole `chat.completion` answer. */
export function encodeChatCompletion(
  meta: AnswerMeta,
  output: CollectedGeneration,
): ChatCompletion {
  return {
    ...meta,
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: output.text },
        logprobs: null,
        finish_reason: output.done.finishReason,
      },
    ],
    usage: toOpenAiUsage(output.done.usage),
  };
}

/**
 * The `chat.completion.chunk` events of a streamed answer: a first chunk with the role, one per
 * token, one with `finish_reason`, the usage chunk when asked for, then {@link sseDone}.
 */
export async function* encodeChatCompletionChunks(
  meta: AnswerMeta,
  events: AsyncIterable<GenerateEvent>,
  options: ChatChunkOptions,
): AsyncGenerator<ChatCompletionChunk | typeof sseDone> {
  // With include_usage every chunk carries `usage: null` except the last one, as OpenAI sends.
  const usage = options.includeUsage ? { usage: null } : {};
  const chunk = (
    delta: ChatCompletionChunk['choices'][number]['delta'],
    finishReason: ChatCompletionChunk['choices'][number]['finish_reason'] = null,
  ): ChatCompletionChunk => ({
    ...meta,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...usage,
  });
  yield chunk({ role: 'assistant', content: '' });
  for await (const event of events) {
    if (event.type === 'token') {
      if (event.text !== '') yield chunk({ content: event.text });
      continue;
    }
    yield chunk({}, event.finishReason);
    if (options.includeUsage) {
      yield {
        ...meta,
        object: 'chat.completion.chunk',
        choices: [],
        usage: toOpenAiUsage(event.usage),
      };
    }
    yield sseDone;
    return;
  }
  throw missingDone();
}
