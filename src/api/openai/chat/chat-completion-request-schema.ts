import { z } from 'zod';
import { functionToolChoiceSchema } from '../../tools/function-tool-choice.js';
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
    z.object({
      type: z.literal('input_audio'),
      input_audio: z.object({
        data: z.string(),
        format: z.enum(['wav', 'mp3', 'flac'], {
          error: '"wav", "mp3" or "flac" (the audio files the engine reads)',
        }),
      }),
    }),
  ],
  { error: 'a content part of type "text", "image_url" or "input_audio"' },
);

const toolCallSchema = z.object({
  id: z.string(),
  type: z.literal('function').optional(),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

const messageSchema = z
  .object({
    // `developer` is what newer OpenAI SDKs send in place of `system`.
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
    content: z
      .union([z.string(), z.array(contentPartSchema)], {
        error: 'a string or an array of content parts',
      })
      .nullish(),
    /** Assistant messages: the calls it made. */
    tool_calls: z.array(toolCallSchema).nullish(),
    /** Tool messages: the call answered. */
    tool_call_id: z.string().nullish(),
    /** Assistant messages of reasoning models, sent back in a history. */
    reasoning_content: z.string().nullish(),
  })
  .superRefine((message, context) => {
    // Only an assistant message (one that made tool calls) may leave its content out.
    if (message.content === undefined && message.role !== 'assistant') {
      context.addIssue({
        code: 'invalid_type',
        expected: 'string',
        path: ['content'],
        input: undefined,
        message: 'a string or an array of content parts',
      });
    }
  });

const functionToolSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'a name of 1 to 64 letters, digits, _ or -' }),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
    strict: z.boolean().nullish(),
  }),
});

// A tool of another type (OpenAI's free-form `custom` tools) is read and then dropped.
const otherToolSchema = z.looseObject({ type: z.string().refine((type) => type !== 'function') });

const toolSchema = z.union([functionToolSchema, otherToolSchema]);

/** A function tool of a {@link ChatCompletionRequest}. */
export type ChatFunctionTool = z.output<typeof functionToolSchema>;

/** Whether a request's tool is a function tool (the only type lmtab runs). */
export function isChatFunctionTool(tool: z.output<typeof toolSchema>): tool is ChatFunctionTool {
  return tool.type === 'function';
}

/** `response_format` of chat and (as llama-server takes it) text completions. */
export const responseFormatSchema = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('text') }),
    z.object({ type: z.literal('json_object') }),
    z.object({
      type: z.literal('json_schema'),
      json_schema: z.object({
        name: z.string().nullish(),
        description: z.string().nullish(),
        schema: z.union([z.record(z.string(), z.unknown()), z.boolean()]).nullish(),
        strict: z.boolean().nullish(),
      }),
    }),
  ],
  { error: 'a response format of type "text", "json_object" or "json_schema"' },
);

/** `POST /v1/chat/completions` request body. */
export const chatCompletionRequestSchema = samplingRequestSchema.extend({
  model: z.string(),
  messages: z.array(messageSchema).min(1),
  tools: z.array(toolSchema).nullish(),
  tool_choice: functionToolChoiceSchema.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  response_format: responseFormatSchema.nullish(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.int().min(0).max(20).nullish(),
  reasoning_effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullish(),
  // Spoken answers: lmtab answers chats in text; speech is /v1/audio/speech.
  modalities: z
    .array(
      z.literal('text', {
        error: '"text" (lmtab answers chats in text; speak an answer with /v1/audio/speech)',
      }),
    )
    .nullish(),
  audio: z
    .null({
      error: 'null or absent (lmtab answers chats in text; speak an answer with /v1/audio/speech)',
    })
    .optional(),
});

/** A validated `/v1/chat/completions` request body. */
export type ChatCompletionRequest = z.output<typeof chatCompletionRequestSchema>;

/** One message of a {@link ChatCompletionRequest}. */
export type ChatCompletionMessage = ChatCompletionRequest['messages'][number];
