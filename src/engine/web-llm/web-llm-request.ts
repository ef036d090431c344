import type {
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
  ChatCompletionRequestStreaming,
  CompletionCreateParamsStreaming,
} from '@mlc-ai/web-llm';
import { LmtabError } from '../../errors/index.js';
import type { ChatMessage, ContentPart, GenerateRequest, SamplingOptions } from '../engine.js';
import { samplingFields } from '../sampling-fields.js';

/** Options of {@link toWebLlmChatRequest}. */
export interface WebLlmChatRequestOptions {
  /** Whether the model reads images (web-llm's VLM models); default false. */
  vision?: boolean;
}

/**
 * web-llm's sampling fields. web-llm has no top-k and no min-p sampler: those two settings are not
 * forwarded (an Ollama client sends `top_k` by default, so refusing them would break clients).
 */
function webLlmSampling(sampling: SamplingOptions) {
  // web-llm refuses these values with its own range errors; say so in lmtab's words first.
  if (sampling.topP !== undefined && !(sampling.topP > 0)) {
    throw invalid(`web-llm takes a top-p above 0 (and at most 1), got ${sampling.topP}.`);
  }
  if (sampling.maxTokens !== undefined && !(sampling.maxTokens > 0)) {
    throw invalid(
      `web-llm generates at least one token: expected a token limit above 0, got ${sampling.maxTokens}.`,
    );
  }
  if (sampling.repeatPenalty !== undefined && !(sampling.repeatPenalty > 0)) {
    throw invalid(`web-llm takes a repeat penalty above 0, got ${sampling.repeatPenalty}.`);
  }
  return samplingFields(sampling, {
    rename: { repeatPenalty: 'repetition_penalty' },
    omit: ['topK', 'minP'],
  });
}

function invalid(message: string, param?: string): LmtabError {
  return new LmtabError('invalid_request', message, param === undefined ? {} : { param });
}

function textOf(parts: ContentPart[]): string {
  return parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** A user message's parts: web-llm takes one text part at most, so the texts are joined there. */
function userContent(message: ChatMessage): string | ChatCompletionContentPart[] {
  if (message.content.every((part) => part.type === 'text')) return textOf(message.content);
  const parts: ChatCompletionContentPart[] = [];
  let textAt = -1;
  for (const part of message.content) {
    if (part.type === 'image') {
      const url = `data:${part.mimeType};base64,${base64(part.data)}`;
      parts.push({ type: 'image_url', image_url: { url } });
    } else if (part.type === 'audio') {
      continue; // refused by webLlmMessage
    } else if (textAt < 0) {
      textAt = parts.length;
      parts.push({ type: 'text', text: part.text });
    } else {
      const joined = parts[textAt] as { type: 'text'; text: string };
      joined.text += part.text;
    }
  }
  return parts;
}

function webLlmMessage(
  message: ChatMessage,
  index: number,
  options: WebLlmChatRequestOptions,
): ChatCompletionMessageParam {
  const clips = message.content.filter((part) => part.type === 'audio').length;
  if (clips > 0) {
    throw invalid(
      `This MLC model cannot hear audio (web-llm reads text and images only), and message ${index} has ${clips} ${clips === 1 ? 'clip' : 'clips'}. Send text, or use a GGUF model with an audio projector.`,
      'messages',
    );
  }
  const images = message.content.filter((part) => part.type === 'image').length;
  if (images > 0 && message.role !== 'user') {
    throw invalid(
      `web-llm reads images only in user messages, but message ${index} (${message.role}) has ${images}.`,
      'messages',
    );
  }
  if (images > 0 && options.vision !== true) {
    throw invalid(
      `This MLC model cannot read images (it is not a vision model), and message ${index} has ${images}. Send text only.`,
      'messages',
    );
  }
  switch (message.role) {
    case 'system':
      if (index !== 0) {
        throw invalid(
          `web-llm takes a system message only as the first message, but message ${index} is one.`,
          'messages',
        );
      }
      return { role: 'system', content: textOf(message.content) };
    case 'assistant':
      return { role: 'assistant', content: textOf(message.content) };
    case 'user':
      return { role: 'user', content: userContent(message) };
    case 'tool':
      throw notSupported(`Tool messages (message ${index})`, 'messages');
  }
}

function notSupported(what: string, param: string): LmtabError {
  return invalid(
    `${what} are not supported by this engine (web-llm); load a GGUF model for them.`,
    param,
  );
}

/**
 * What web-llm cannot do of a request, as a 400: tool calls (its function calling covers a few
 * Hermes models, with its own prompt), log probabilities and thinking switches. JSON output it
 * does (`response_format` with a schema).
 */
function assertWebLlmSupports(request: GenerateRequest): void {
  if ((request.tools?.length ?? 0) > 0 && request.toolChoice !== 'none') {
    throw notSupported('Tool calls', 'tools');
  }
  if (request.logprobs !== undefined) throw notSupported('Log probabilities', 'logprobs');
  if (request.thinking !== undefined) throw notSupported('Thinking switches', 'thinking');
  const input = request.input;
  if (input.kind === 'chat') {
    const index = input.messages.findIndex((m) => (m.toolCalls?.length ?? 0) > 0);
    if (index >= 0) throw notSupported(`Tool calls in the history (message ${index})`, 'messages');
  } else if (request.format !== undefined) {
    throw notSupported('JSON output of raw completions', 'format');
  }
}

/** web-llm's `response_format` for lmtab's output format. */
function webLlmFormat(request: GenerateRequest) {
  const format = request.format;
  if (format === undefined) return {};
  return {
    response_format: {
      type: 'json_object' as const,
      ...(format.schema === undefined ? {} : { schema: JSON.stringify(format.schema) }),
    },
  };
}

/** lmtab's chat request as web-llm's streamed chat completion request, usage included. */
export function toWebLlmChatRequest(
  request: GenerateRequest,
  options: WebLlmChatRequestOptions = {},
): ChatCompletionRequestStreaming {
  if (request.input.kind !== 'chat') {
    throw new Error('toWebLlmChatRequest takes a chat request; use toWebLlmCompletionRequest');
  }
  assertWebLlmSupports(request);
  const { messages } = request.input;
  const last = messages.at(-1);
  if (last?.role !== 'user') {
    throw invalid(
      `web-llm answers a conversation that ends with a user message, but it ends with ${last ? `${last.role === 'assistant' ? 'an' : 'a'} ${last.role} message` : 'no message'}.`,
      'messages',
    );
  }
  return {
    ...webLlmSampling(request.sampling),
    model: request.model,
    messages: messages.map((message, index) => webLlmMessage(message, index, options)),
    ...webLlmFormat(request),
    stream: true,
    stream_options: { include_usage: true },
  };
}

/** lmtab's raw prompt request as web-llm's streamed text completion request, usage included. */
export function toWebLlmCompletionRequest(
  request: GenerateRequest,
): CompletionCreateParamsStreaming {
  if (request.input.kind !== 'prompt') {
    throw new Error('toWebLlmCompletionRequest takes a prompt request; use toWebLlmChatRequest');
  }
  assertWebLlmSupports(request);
  const images = request.input.images?.length ?? 0;
  if (images > 0) {
    throw invalid(
      `web-llm's text completion takes no images, but the request has ${images}. Use chat messages.`,
      'images',
    );
  }
  return {
    ...webLlmSampling(request.sampling),
    model: request.model,
    prompt: request.input.prompt,
    stream: true,
    stream_options: { include_usage: true },
  };
}
