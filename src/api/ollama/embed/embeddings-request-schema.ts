import { z } from 'zod';
import { unknownFieldsError } from '../../body/unknown-fields-error.js';
import { embedOptionsSchema } from './embed-request-schema.js';
import { keepAliveSchema } from '../generate/keep-alive-schema.js';

/** `POST /api/embeddings` (Ollama's older endpoint) request body: one `prompt` (strict). */
export const embeddingsRequestSchema = z.strictObject(
  {
    model: z.string(),
    prompt: z.string().nullish(),
    keep_alive: keepAliveSchema,
    options: embedOptionsSchema.nullish(),
  },
  { error: unknownFieldsError(['model', 'prompt', 'keep_alive', 'options']) },
);

/** A validated `/api/embeddings` request body. */
export type EmbeddingsWireRequest = z.output<typeof embeddingsRequestSchema>;
