import type { ChatMessage, GenerateRequest } from '../../engine/index.js';
import { decodeImage } from '../decode-image.js';
import type { ChatWireRequest } from './chat-request-schema.js';
import { optionsToSampling } from './options-to-sampling.js';

/** Options of {@link chatRequestToGenerate}. */
export interface ChatRequestToGenerateOptions {
  /** Largest image accepted, in bytes. */
  maxImageBytes: number;
}

/** Converts an `/api/chat` body to a generate request for `model` (images before the text). */
export async function chatRequestToGenerate(
  wire: ChatWireRequest,
  model: string,
  options: ChatRequestToGenerateOptions,
): Promise<GenerateRequest> {
  const { sampling, contextLength } = optionsToSampling(wire.options ?? {});
  const messages = await Promise.all(
    (wire.messages ?? []).map(async (message, i): Promise<ChatMessage> => {
      const images = await Promise.all(
        (message.images ?? []).map((image, k) =>
          decodeImage(image, {
            param: `messages[${i}].images[${k}]`,
            bareBase64: true,
            maxBytes: options.maxImageBytes,
          }),
        ),
      );
      return {
        role: message.role,
        content: [...images, { type: 'text', text: message.content ?? '' }],
      };
    }),
  );
  const request: GenerateRequest = { model, input: { kind: 'chat', messages }, sampling };
  if (contextLength !== undefined) request.contextLength = contextLength;
  return request;
}

/** How many images an `/api/chat` body carries. */
export function countChatImages(wire: ChatWireRequest): number {
  return (wire.messages ?? []).reduce((sum, m) => sum + (m.images?.length ?? 0), 0);
}
