import { z } from 'zod';
import { unknownFieldsError } from '../../body/unknown-fields-error.js';

/** OpenAI's limit on inputs in one embeddings request. */
export const maxEmbeddingInputs = 2048;

const text = z.string().min(1, { error: 'a non-empty string' });
const tokens = z
  .array(z.int().min(0), { error: 'an array of token ids' })
  .min(1, { error: 'a non-empty array of token ids' });

/**
 * `POST /v1/embeddings` request body. Strict: a field lmtab does not know is refused, not dropped.
 * `user` (an end-user id for the provider's abuse monitoring) is accepted and has no effect here.
 */
export const embeddingRequestSchema = z.strictObject(
  {
    model: z.string(),
    input: z.union(
      [
        text,
        z.array(text).min(1).max(maxEmbeddingInputs),
        tokens,
        z.array(tokens).min(1).max(maxEmbeddingInputs),
      ],
      {
        error:
          'a string, an array of strings, an array of token ids, or an array of arrays of token ids',
      },
    ),
    encoding_format: z.enum(['float', 'base64']).nullish(),
    dimensions: z.int().min(1).nullish(),
    user: z.string().nullish(),
  },
  { error: unknownFieldsError(['model', 'input', 'encoding_format', 'dimensions', 'user']) },
);

/** A validated `/v1/embeddings` request body. */
export type EmbeddingWireRequest = z.output<typeof embeddingRequestSchema>;
