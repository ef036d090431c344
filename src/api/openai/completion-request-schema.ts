import { z } from 'zod';
import { samplingRequestSchema } from './sampling-request-schema.js';

/** `POST /v1/completions` request body (one prompt; a one-string array is taken too). */
export const completionRequestSchema = samplingRequestSchema.extend({
  model: z.string(),
  prompt: z.union([z.string(), z.array(z.string()).length(1)], {
    error: 'a string (or an array holding one string)',
  }),
});

/** A validated `/v1/completions` request body. */
export type CompletionRequest = z.output<typeof completionRequestSchema>;
