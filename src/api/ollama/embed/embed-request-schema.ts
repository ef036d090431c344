import { z } from 'zod';
import { unknownFieldsError } from '../../body/unknown-fields-error.js';
import { keepAliveSchema } from '../generate/keep-alive-schema.js';

/**
 * The `options` of `/api/embed` and `/api/embeddings`: only `num_ctx` shapes an embedding here
 * (sampling options mean nothing to an encoder), so any other option is refused, not dropped.
 */
export const embedOptionsSchema = z.strictObject(
  { num_ctx: z.int().min(1).nullish() },
  { error: unknownFieldsError(['num_ctx']) },
);

/**
 * `POST /api/embed` request body (strict). No `input` (or an empty one) only loads the model, as
 * Ollama does.
 */
export const embedRequestSchema = z.strictObject(
  {
    model: z.string(),
    input: z
      .union([z.string(), z.array(z.string())], { error: 'a string or an array of strings' })
      .nullish(),
    truncate: z.boolean().nullish(),
    dimensions: z.int().min(1).nullish(),
    keep_alive: keepAliveSchema,
    options: embedOptionsSchema.nullish(),
  },
  {
    error: unknownFieldsError([
      'model',
      'input',
      'truncate',
      'dimensions',
      'keep_alive',
      'options',
    ]),
  },
);

/** A validated `/api/embed` request body. */
export type EmbedWireRequest = z.output<typeof embedRequestSchema>;
