import type { EmbedResult } from '../../../engine/index.js';

/** One vector of an OpenAI embeddings answer. */
export interface OpenAiEmbedding {
  object: 'embedding';
  index: number;
  /** Numbers, or with `encoding_format: "base64"` the little-endian float32 bytes in base64. */
  embedding: number[] | string;
}

/** OpenAI's embeddings answer. */
export interface OpenAiEmbeddingList {
  object: 'list';
  data: OpenAiEmbedding[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}

/** Base64 of a vector's float32 values, little-endian, as OpenAI's `encoding_format: "base64"`. */
export function float32Base64(vector: Float32Array): string {
  const bytes = new Uint8Array(vector.length * 4);
  const view = new DataView(bytes.buffer);
  vector.forEach((value, i) => view.setFloat32(i * 4, value, true));
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** The `/v1/embeddings` answer for the engine's vectors, in input order. */
export function encodeEmbeddings(
  model: string,
  result: EmbedResult,
  encoding: 'float' | 'base64',
): OpenAiEmbeddingList {
  return {
    object: 'list',
    data: result.embeddings.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: encoding === 'base64' ? float32Base64(vector) : Array.from(vector),
    })),
    model,
    usage: { prompt_tokens: result.promptTokens, total_tokens: result.promptTokens },
  };
}
