import { z } from 'zod';
import { keepAliveSchema } from './keep-alive-schema.js';
import { optionsSchema } from './options-schema.js';
import { structuredFields } from './structured-fields.js';

/**
 * `POST /api/generate` request body. `template`, `suffix` and `context` are not supported yet and
 * are dropped with the other unknown fields.
 */
export const generateRequestSchema = z.object({
  model: z.string(),
  prompt: z.string().nullish(),
  system: z.string().nullish(),
  images: z.array(z.string()).nullish(),
  options: optionsSchema.nullish(),
  stream: z.boolean().nullish(),
  raw: z.boolean().nullish(),
  keep_alive: keepAliveSchema,
  ...structuredFields,
});

/** A validated `/api/generate` request body. */
export type GenerateWireRequest = z.output<typeof generateRequestSchema>;
