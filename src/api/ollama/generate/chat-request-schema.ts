import { z } from 'zod';
import { functionToolChoiceSchema } from '../../tools/function-tool-choice.js';
import { keepAliveSchema } from './keep-alive-schema.js';
import { optionsSchema } from './options-schema.js';
import { structuredFields } from './structured-fields.js';

const toolCallSchema = z.object({
  function: z.object({
    name: z.string().min(1),
    // Ollama sends arguments as an object; some clients send the OpenAI JSON text.
    arguments: z.union([z.record(z.string(), z.unknown()), z.string()], {
      error: 'an object (or its JSON text)',
    }),
  }),
});

const messageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().nullish(),
  images: z.array(z.string()).nullish(),
  thinking: z.string().nullish(),
  tool_calls: z.array(toolCallSchema).nullish(),
  /** Tool messages: the tool that answered. */
  tool_name: z.string().nullish(),
});

const toolSchema = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, {
      error: 'a name of 1 to 64 letters, digits, _ or -',
    }),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
    strict: z.boolean().nullish(),
  }),
});

/** `POST /api/chat` request body. */
export const chatRequestSchema = z.object({
  model: z.string(),
  messages: z.array(messageSchema).nullish(),
  tools: z.array(toolSchema).nullish(),
  // Not in Ollama's API (which ignores it); lmtab honours it as Chat Completions does.
  tool_choice: functionToolChoiceSchema.nullish(),
  options: optionsSchema.nullish(),
  stream: z.boolean().nullish(),
  keep_alive: keepAliveSchema,
  ...structuredFields,
});

/** A validated `/api/chat` request body. */
export type ChatWireRequest = z.output<typeof chatRequestSchema>;
