import { z } from 'zod';

// Top-level objects are strict: a field lmtab does not implement (background, conversation,
// prompt, top_logprobs, ...) is a 400 that names it. Hints and bookkeeping that change nothing in a
// tab (`include`, `client_metadata`, `service_tier`, ...) are accepted.

const inputTextSchema = z.object({ type: z.literal('input_text'), text: z.string() });
const inputImageSchema = z.object({
  type: z.literal('input_image'),
  image_url: z.string({ error: 'an image URL or data URI (lmtab has no file store)' }),
  detail: z.enum(['low', 'high', 'auto']).nullish(),
});
const outputTextSchema = z.object({ type: z.literal('output_text'), text: z.string() });
const refusalSchema = z.object({ type: z.literal('refusal'), refusal: z.string() });

const messagePartSchema = z.discriminatedUnion(
  'type',
  [inputTextSchema, inputImageSchema, outputTextSchema, refusalSchema],
  { error: 'a content part of type "input_text", "input_image", "output_text" or "refusal"' },
);

const messageItemSchema = z.object({
  type: z.literal('message'),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(messagePartSchema)], {
    error: 'a string or an array of content parts',
  }),
});

const functionCallItemSchema = z.object({
  type: z.literal('function_call'),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
});

const functionCallOutputItemSchema = z.object({
  type: z.literal('function_call_output'),
  call_id: z.string(),
  output: z.union([z.string(), z.array(inputTextSchema)], {
    error: 'a string or an array of input_text parts',
  }),
});

const reasoningItemSchema = z.object({
  type: z.literal('reasoning'),
  summary: z.array(z.object({ type: z.literal('summary_text'), text: z.string() })).optional(),
  content: z.array(z.object({ type: z.literal('reasoning_text'), text: z.string() })).nullish(),
});

const inputItemSchema = z.preprocess(
  // Easy input messages (`{role, content}`) leave out their type.
  (item) =>
    typeof item === 'object' && item !== null && !('type' in item) && 'role' in item
      ? { ...item, type: 'message' }
      : item,
  z.discriminatedUnion(
    'type',
    [messageItemSchema, functionCallItemSchema, functionCallOutputItemSchema, reasoningItemSchema],
    { error: 'an item of type "message", "function_call", "function_call_output" or "reasoning"' },
  ),
);

const functionToolSchema = z.object({
  type: z.literal('function'),
  name: z.string().min(1),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

/** A tool of another type than function or namespace: read, then dropped. */
const builtInToolSchema = z.looseObject({
  type: z.string().refine((type) => type !== 'function' && type !== 'namespace'),
});

// Codex groups tools under a namespace; its function tools are flattened into the request's tools.
const namespaceToolSchema = z.object({
  type: z.literal('namespace'),
  name: z.string().min(1),
  description: z.string().nullish(),
  tools: z.array(z.union([functionToolSchema, builtInToolSchema])),
});

const toolSchema = z.union([functionToolSchema, namespaceToolSchema, builtInToolSchema]);

const toolChoiceSchema = z.union(
  [
    z.enum(['none', 'auto', 'required']),
    z.strictObject({ type: z.literal('function'), name: z.string() }),
    // Forcing a built-in tool (`{"type": "web_search_preview"}`, mcp, custom...) is refused later.
    z.looseObject({
      type: z.string().refine((type) => type !== 'function' && type !== 'allowed_tools'),
    }),
  ],
  { error: '"none", "auto", "required" or {"type": "function", "name": ...}' },
);

const formatSchema = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('text') }),
    z.strictObject({ type: z.literal('json_object') }),
    z.strictObject({
      type: z.literal('json_schema'),
      name: z.string(),
      schema: z.record(z.string(), z.unknown()),
      description: z.string().nullish(),
      strict: z.boolean().nullish(),
    }),
  ],
  { error: 'a format of type "text", "json_object" or "json_schema"' },
);

/** `POST /v1/responses` request body. */
export const responsesRequestSchema = z.strictObject({
  model: z.string(),
  input: z.union([z.string(), z.array(inputItemSchema)], {
    error: 'a string or an array of input items',
  }),
  instructions: z.string().nullish(),
  tools: z.array(toolSchema).nullish(),
  tool_choice: toolChoiceSchema.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  text: z
    .strictObject({
      format: formatSchema.nullish(),
      // A hint for the answer's length, which the model is not trained to take.
      verbosity: z.enum(['low', 'medium', 'high']).nullish(),
    })
    .nullish(),
  max_output_tokens: z.int().min(1).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  stream: z.boolean().nullish(),
  // Obfuscation pads deltas against side channels over the internet; lmtab never sends it.
  stream_options: z.strictObject({ include_obfuscation: z.boolean().nullish() }).nullish(),
  store: z.boolean().nullish(),
  previous_response_id: z.string().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  reasoning: z
    .strictObject({
      effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh']).nullish(),
      // Reasoning comes back whole (reasoning_text), never summarized.
      summary: z.enum(['auto', 'concise', 'detailed']).nullish(),
    })
    .nullish(),
  // Identifiers, routing hints and output extras that change nothing in a tab: accepted and
  // ignored (the prompt cache is automatic, every request runs on the tab's engine, and reasoning
  // comes back as plain text, never encrypted).
  include: z.array(z.string()).nullish(),
  client_metadata: z.record(z.string(), z.unknown()).nullish(),
  user: z.string().nullish(),
  safety_identifier: z.string().nullish(),
  prompt_cache_key: z.string().nullish(),
  prompt_cache_retention: z.string().nullish(),
  service_tier: z.string().nullish(),
  truncation: z.literal('disabled', { error: '"disabled" (lmtab never drops input)' }).nullish(),
});

/** A validated `/v1/responses` request body. */
export type ResponsesRequest = z.output<typeof responsesRequestSchema>;

/** A function tool of a {@link ResponsesRequest}, at the top level or in a namespace. */
export type ResponsesFunctionTool = z.output<typeof functionToolSchema>;

/** A namespace tool of a {@link ResponsesRequest}. */
export type ResponsesNamespaceTool = z.output<typeof namespaceToolSchema>;

/** Whether a tool is a function tool. */
export function isFunctionTool(tool: { type: string }): tool is ResponsesFunctionTool {
  return tool.type === 'function';
}

/** Whether a tool is a namespace of tools. */
export function isNamespaceTool(tool: { type: string }): tool is ResponsesNamespaceTool {
  return tool.type === 'namespace';
}

/** Whether a tool choice names a function tool. */
export function isFunctionChoice(choice: {
  type: string;
}): choice is { type: 'function'; name: string } {
  return choice.type === 'function';
}

/** One input item of a {@link ResponsesRequest}. */
export type ResponsesInputItem = Exclude<ResponsesRequest['input'], string>[number];
