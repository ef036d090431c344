import type { EmbedInput, EmbedRequest } from '../../../engine/index.js';
import type { EmbeddingWireRequest } from './embedding-request-schema.js';

/**
 * The internal request of a `/v1/embeddings` body: one input per vector, in order (one token
 * array is one input). Inputs over the context are an error, as OpenAI answers them.
 */
export function embeddingRequestToEmbed(wire: EmbeddingWireRequest, model: string): EmbedRequest {
  const { input } = wire;
  let inputs: EmbedInput[];
  if (typeof input === 'string') inputs = [input];
  else if (input.every((item) => typeof item === 'number')) inputs = [input as number[]];
  else inputs = input as EmbedInput[];
  return { model, inputs, truncate: false };
}
