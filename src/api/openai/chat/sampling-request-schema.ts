import { z } from 'zod';

/**
 * Wire fields shared by `/v1/chat/completions` and `/v1/completions`: sampling, limits and
 * streaming. `null` is accepted everywhere (SDKs send it for "unset"); unknown fields are dropped,
 * as OpenAI-compatible servers do, and `user` is ignored.
 */
export const samplingRequestSchema = z.object({
  temperature: z.number().min(0).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  top_k: z.int().min(0).nullish(),
  min_p: z.number().min(0).max(1).nullish(),
  max_tokens: z.int().min(0).nullish(),
  max_completion_tokens: z.int().min(0).nullish(),
  repeat_penalty: z.number().min(0).nullish(),
  frequency_penalty: z.number().min(-2).max(2).nullish(),
  presence_penalty: z.number().min(-2).max(2).nullish(),
  seed: z.int().nullish(),
  // llama-server's extension: keep generating past end-of-sequence (fixed-length benchmarks).
  ignore_eos: z.boolean().nullish(),
  stop: z
    .union([z.string(), z.array(z.string())], { error: 'a string or an array of strings' })
    .nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).nullish(),
  n: z.literal(1, { error: '1 (lmtab generates one choice per request)' }).nullish(),
});

/** The shared wire fields after validation. */
export type SamplingRequest = z.output<typeof samplingRequestSchema>;
