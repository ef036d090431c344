import type { ChatMessage, ContentPart, GenerateRequest } from '../../../engine/index.js';
import { decodeImage } from '../../media/decode-image.js';
import type { GenerateWireRequest } from './generate-request-schema.js';
import { optionsToSampling } from '../../pipeline/options-to-sampling.js';
import { applyStructuredFields } from './structured-fields.js';

/** Options of {@link generateRequestToGenerate}. */
export interface GenerateRequestToGenerateOptions {
  /** Largest image accepted, in bytes. */
  maxImageBytes: number;
}

/**
 * Converts an `/api/generate` body to a generate request for `model`: a raw prompt when `raw`,
 * else a chat of the optional system message and one user turn (the chat template applies).
 */
export async function generateRequestToGenerate(
  wire: GenerateWireRequest,
  model: string,
  options: GenerateRequestToGenerateOptions,
): Promise<GenerateRequest> {
  const { sampling, contextLength } = optionsToSampling(wire.options ?? {});
  const images = await Promise.all(
    (wire.images ?? []).map((image, i) =>
      decodeImage(image, {
        param: `images[${i}]`,
        bareBase64: true,
        maxBytes: options.maxImageBytes,
      }),
    ),
  );
  const prompt = wire.prompt ?? '';
  const request: GenerateRequest =
    wire.raw === true
      ? { model, input: { kind: 'prompt', prompt, images }, sampling }
      : {
          model,
          input: { kind: 'chat', messages: toMessages(wire.system, prompt, images) },
          sampling,
        };
  if (contextLength !== undefined) request.contextLength = contextLength;
  applyStructuredFields(wire, request);
  return request;
}

function toMessages(
  system: string | null | undefined,
  prompt: string,
  images: ContentPart[],
): ChatMessage[] {
  const user: ChatMessage = { role: 'user', content: [...images, { type: 'text', text: prompt }] };
  if (system === undefined || system === null) return [user];
  return [{ role: 'system', content: [{ type: 'text', text: system }] }, user];
}
