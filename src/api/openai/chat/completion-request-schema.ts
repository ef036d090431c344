import { z } from 'zod';
import { responseFormatSchema } from './chat-completion-request-schema.js';
import { samplingRequestSchema } from './sampling-request-schema.js';

/** `POST /v1/completions` request body (one prompt; a one-string array is taken too). */
export const completionRequestSchema = samplingRequestSchema.extend({
  model: z.string(),
  prompt: z.union([z.string(), z.array(z.string()).length(1)], {
    error: 'a string (or an array holding one string)',
  }),
  /** Legacy logprobs: how many alternatives to list per token (0 lists only the sampled one). */
  logprobs: z.int().min(0).max(20).nullish(),
  response_format: responseFormatSchema.nullish(),
});

/** A validated `/v1/completions` request body. */
export type CompletionRequest = z.output<typeof completionRequestSchema>;
