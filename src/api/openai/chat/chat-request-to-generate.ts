import { chatToolRequest } from '../../tools/tool-definitions.js';
import type {
  AudioFormat,
  ChatMessage,
  ContentPart,
  GenerateRequest,
  OutputFormat,
} from '../../../engine/index.js';
import { LmtabError } from '../../../errors/index.js';
import { assertEnforceableSchema } from '../../tools/assert-enforceable-schema.js';
import { assertAudioFile } from '../../media/audio-file.js';
import { decodeBase64, decodeImage } from '../../media/decode-image.js';
import { describeBytes } from '../../body/describe-bytes.js';
import { isChatFunctionTool } from './chat-completion-request-schema.js';
import type {
  ChatCompletionMessage,
  ChatCompletionRequest,
} from './chat-completion-request-schema.js';
import { toSamplingOptions } from './to-sampling-options.js';

/** Options of {@link chatRequestToGenerate}. */
export interface ChatRequestToGenerateOptions {
  /** Fetches images given by http(s) URL. */
  fetch: typeof globalThis.fetch;
  /** Aborts image fetches. */
  signal?: AbortSignal;
  /** Largest image accepted, in bytes. */
  maxImageBytes: number;
}

/** Converts a `/v1/chat/completions` body to a generate request for `model` (images decoded). */
export async function chatRequestToGenerate(
  wire: ChatCompletionRequest,
  model: string,
  options: ChatRequestToGenerateOptions,
): Promise<GenerateRequest> {
  const messages = await Promise.all(
    wire.messages.map(async (message, i) => toMessage(message, i, options)),
  );
  const request: GenerateRequest = {
    model,
    input: { kind: 'chat', messages },
    sampling: toSamplingOptions(wire),
  };
  // Tools of other types than function are dropped; forcing one is refused.
  const tools = (wire.tools ?? []).flatMap((tool, i) =>
    isChatFunctionTool(tool) ? [{ ...tool, at: i }] : [],
  );
  Object.assign(request, chatToolRequest(tools, wire.tool_choice));
  if (wire.parallel_tool_calls != null) request.parallelToolCalls = wire.parallel_tool_calls;
  const format = toOutputFormat(wire);
  if (format !== undefined) request.format = format;
  if (wire.top_logprobs != null && wire.logprobs !== true) {
    throw new LmtabError(
      'invalid_request',
      `\`top_logprobs\` needs \`logprobs: true\`, received logprobs ${JSON.stringify(wire.logprobs ?? null)}.`,
      { param: 'top_logprobs' },
    );
  }
  if (wire.logprobs === true) request.logprobs = { top: wire.top_logprobs ?? 0 };
  if (wire.reasoning_effort != null) request.thinking = wire.reasoning_effort !== 'none';
  return request;
}

async function toMessage(
  message: ChatCompletionMessage,
  i: number,
  options: ChatRequestToGenerateOptions,
): Promise<ChatMessage> {
  const converted: ChatMessage = {
    role: message.role === 'developer' ? 'system' : message.role,
    content: await toContent(message, `messages[${i}].content`, options),
  };
  const calls = message.tool_calls ?? [];
  if (calls.length > 0) {
    if (message.role !== 'assistant') {
      throw new LmtabError(
        'invalid_request',
        `Only assistant messages carry \`tool_calls\`, but messages[${i}] is a ${message.role} message.`,
        { param: `messages[${i}].tool_calls` },
      );
    }
    converted.toolCalls = calls.map((call) => ({
      id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    }));
  }
  if (message.role === 'tool') {
    if (message.tool_call_id == null) {
      throw new LmtabError(
        'invalid_request',
        `Missing required field \`messages[${i}].tool_call_id\`: a tool message names the call it answers.`,
        { param: `messages[${i}].tool_call_id` },
      );
    }
    if (converted.content.some((part) => part.type !== 'text')) {
      throw new LmtabError(
        'invalid_request',
        `Invalid \`messages[${i}].content\`: a tool message holds text (a string or text parts), received ${converted.content.some((part) => part.type === 'audio') ? 'audio' : 'an image'}.`,
        { param: `messages[${i}].content` },
      );
    }
    converted.toolCallId = message.tool_call_id;
  }
  if (message.reasoning_content != null && message.role === 'assistant') {
    converted.reasoning = message.reasoning_content;
  }
  return converted;
}

function toOutputFormat(wire: ChatCompletionRequest): OutputFormat | undefined {
  const format = wire.response_format;
  if (format == null || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json' };
  const schema = format.json_schema.schema;
  if (schema == null || schema === true) return { type: 'json' };
  assertEnforceableSchema(schema, 'response_format.json_schema.schema');
  if (schema === false) {
    throw new LmtabError(
      'invalid_request',
      'Invalid `response_format.json_schema.schema`: `false` admits no answer at all.',
      { param: 'response_format.json_schema.schema' },
    );
  }
  return { type: 'json', schema };
}

/** How many images a `/v1/chat/completions` body carries. */
export function countChatImages(wire: ChatCompletionRequest): number {
  return wire.messages.reduce(
    (sum, m) =>
      sum + (Array.isArray(m.content) ? m.content.filter((p) => p.type === 'image_url').length : 0),
    0,
  );
}

async function toContent(
  message: ChatCompletionMessage,
  path: string,
  options: ChatRequestToGenerateOptions,
): Promise<ContentPart[]> {
  const { content } = message;
  if (content == null) return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Promise.all(
    content.map(async (part, j): Promise<ContentPart> => {
      if (part.type === 'text') return { type: 'text', text: part.text };
      if (part.type === 'input_audio') {
        return decodeInputAudio(
          part.input_audio,
          `${path}[${j}].input_audio`,
          options.maxImageBytes,
        );
      }
      const { image_url: image } = part;
      const url = typeof image === 'string' ? image : image.url;
      const param = `${path}[${j}].image_url${typeof image === 'string' ? '' : '.url'}`;
      return decodeImage(url, {
        param,
        fetch: options.fetch,
        signal: options.signal,
        maxBytes: options.maxImageBytes,
      });
    }),
  );
}

/** An `input_audio` part: base64 of a file in a format the engine reads, the one it declares. */
function decodeInputAudio(
  audio: { data: string; format: AudioFormat },
  param: string,
  maxBytes: number,
): ContentPart {
  const bytes = decodeBase64(audio.data, `${param}.data`, 'audio');
  if (bytes.length > maxBytes) {
    throw new LmtabError(
      'invalid_request',
      `Audio at \`${param}.data\` too large: the limit is ${describeBytes(maxBytes)}, received ${describeBytes(bytes.length)}.`,
      { param: `${param}.data` },
    );
  }
  const facts = assertAudioFile(bytes, `${param}.data`);
  if (facts.format !== audio.format) {
    throw new LmtabError(
      'invalid_request',
      `Invalid \`${param}.format\`: it says "${audio.format}", and the data is a ${facts.format} file; expected the two to agree.`,
      { param: `${param}.format` },
    );
  }
  return { type: 'audio', data: bytes, format: facts.format };
}
