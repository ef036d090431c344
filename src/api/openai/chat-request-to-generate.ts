import type { ChatMessage, ContentPart, GenerateRequest } from '../../engine/index.js';
import { decodeImage } from '../decode-image.js';
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
    wire.messages.map(async (message, i): Promise<ChatMessage> => ({
      role: message.role === 'developer' ? 'system' : message.role,
      content: await toContent(message, `messages[${i}].content`, options),
    })),
  );
  return { model, input: { kind: 'chat', messages }, sampling: toSamplingOptions(wire) };
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
  if (content === null) return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Promise.all(
    content.map(async (part, j): Promise<ContentPart> => {
      if (part.type === 'text') return { type: 'text', text: part.text };
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
