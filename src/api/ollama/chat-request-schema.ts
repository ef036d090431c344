import { z } from 'zod';
import { keepAliveSchema } from './keep-alive-schema.js';
import { optionsSchema } from './options-schema.js';

const messageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string().nullish(),
  images: z.array(z.string()).nullish(),
});

/** `POST /api/chat` request body (`tools` and `format` are not supported yet and are dropped). */
export const chatRequestSchema = z.object({
  model: z.string(),
  messages: z.array(messageSchema).nullish(),
  options: optionsSchema.nullish(),
  stream: z.boolean().nullish(),
  keep_alive: keepAliveSchema,
});

/** A validated `/api/chat` request body. */
export type ChatWireRequest = z.output<typeof chatRequestSchema>;
