import { z } from 'zod';

/** The `options` object of `/api/generate` and `/api/chat`; other Ollama options are ignored. */
export const optionsSchema = z.object({
  temperature: z.number().min(0).nullish(),
  top_k: z.int().min(0).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  min_p: z.number().min(0).max(1).nullish(),
  num_predict: z.int().nullish(),
  repeat_penalty: z.number().min(0).nullish(),
  presence_penalty: z.number().nullish(),
  frequency_penalty: z.number().nullish(),
  stop: z
    .union([z.string(), z.array(z.string())], { error: 'a string or an array of strings' })
    .nullish(),
  seed: z.int().nullish(),
  num_ctx: z.int().min(1).nullish(),
});

/** Validated Ollama `options`. */
export type OllamaOptions = z.output<typeof optionsSchema>;
