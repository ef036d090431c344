import type { GenerateEvent } from '../../../engine/index.js';
import type { CollectedGeneration } from '../../pipeline/collect-generation.js';
import { sseDone } from '../../encoders/sse-encoder.js';
import { missingDone } from '../../pipeline/start-generation.js';
import type {
  AnswerMeta,
  ChatCompletion,
  ChatCompletionChunk,
  OpenAiFinishReason,
} from '../response-types.js';
import { toChatLogprobs } from './to-openai-logprobs.js';
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
  const calls = output.toolCalls;
  const message: ChatCompletion['choices'][number]['message'] = {
    role: 'assistant',
    // OpenAI answers a call without text with `content: null`.
    content: calls.length > 0 && output.text === '' ? null : output.text,
    // Required by OpenAI's schema; lmtab's models never refuse through this channel.
    refusal: null,
  };
  if (output.reasoning !== '') message.reasoning_content = output.reasoning;
  if (calls.length > 0) {
    message.tool_calls = calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    ...meta,
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        message,
        logprobs: output.logprobs === undefined ? null : toChatLogprobs(output.logprobs),
        finish_reason: finishReason(output.done.finishReason, calls.length > 0),
      },
    ],
    usage: toOpenAiUsage(output.done.usage),
  };
}

/** `tool_calls` whenever the answer holds calls, unless it was cut at the token limit. */
function finishReason(reason: OpenAiFinishReason, called: boolean): OpenAiFinishReason {
  return called && reason === 'stop' ? 'tool_calls' : reason;
}

/**
 * The `chat.completion.chunk` events of a streamed answer: a first chunk with the role, one per
 * token, reasoning piece or tool-call piece (a call's id and name first, its arguments after, as
 * OpenAI streams them), one with `finish_reason`, the usage chunk when asked for, then
 * {@link sseDone}.
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
    finish: ChatCompletionChunk['choices'][number]['finish_reason'] = null,
    logprobs: ChatCompletionChunk['choices'][number]['logprobs'] = null,
  ): ChatCompletionChunk => ({
    ...meta,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, logprobs, finish_reason: finish }],
    ...usage,
  });
  // The first delta as OpenAI sends it: role, empty content and no refusal.
  yield chunk({ role: 'assistant', content: '', refusal: null });
  let called = false;
  for await (const event of events) {
    if (event.type === 'token') {
      if (event.logprobs !== undefined) {
        yield chunk({ content: event.text }, null, toChatLogprobs(event.logprobs));
      } else if (event.text !== '') {
        yield chunk({ content: event.text });
      }
      continue;
    }
    if (event.type === 'reasoning') {
      if (event.text !== '') yield chunk({ reasoning_content: event.text });
      continue;
    }
    if (event.type === 'tool_call') {
      called = true;
      const start = event.name !== undefined || event.id !== undefined;
      yield chunk({
        tool_calls: [
          {
            index: event.index,
            ...(event.id === undefined ? {} : { id: event.id }),
            ...(start ? { type: 'function' as const } : {}),
            function: {
              ...(event.name === undefined ? {} : { name: event.name }),
              arguments: event.argumentsDelta,
            },
          },
        ],
      });
      continue;
    }
    yield chunk({}, finishReason(event.finishReason, called));
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
