import { z } from 'zod';
import { samplingRequestSchema } from './sampling-request-schema.js';

const imageUrlSchema = z.union(
  [z.string(), z.object({ url: z.string(), detail: z.string().nullish() })],
  { error: 'an image URL string or an object with a `url` string' },
);

const contentPartSchema = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('text'), text: z.string() }),
    z.object({ type: z.literal('image_url'), image_url: imageUrlSchema }),
  ],
  { error: 'a content part of type "text" or "image_url"' },
);

const messageSchema = z.object({
  // `developer` is what newer OpenAI SDKs send in place of `system`.
  role: z.enum(['system', 'developer', 'user', 'assistant']),
  content: z
    .union([z.string(), z.array(contentPartSchema)], {
      error: 'a string or an array of content parts',
    })
    .nullable(),
});

/** `POST /v1/chat/completions` request body. */
export const chatCompletionRequestSchema = samplingRequestSchema.extend({
  model: z.string(),
  messages: z.array(messageSchema).min(1),
});

/** A validated `/v1/chat/completions` request body. */
export type ChatCompletionRequest = z.output<typeof chatCompletionRequestSchema>;

/** One message of a {@link ChatCompletionRequest}. */
export type ChatCompletionMessage = ChatCompletionRequest['messages'][number];
