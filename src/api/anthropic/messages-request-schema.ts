import { z } from 'zod';

// Top-level objects are strict: a field lmtab does not implement is a 400 that names it. Blocks
// are not, so hints such as `cache_control` and `citations` pass (prompt caching is automatic).

const textBlockSchema = z.object({ type: z.literal('text'), text: z.string() });

const imageSourceSchema = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
    z.object({ type: z.literal('url'), url: z.string() }),
  ],
  { error: 'an image source of type "base64" or "url"' },
);

const imageBlockSchema = z.object({ type: z.literal('image'), source: imageSourceSchema });

const toolResultBlockSchema = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z
    .union(
      [
        z.string(),
        z.array(
          z.discriminatedUnion('type', [textBlockSchema, imageBlockSchema], {
            error: 'a block of type "text" or "image"',
          }),
        ),
      ],
      { error: 'a string or an array of text and image blocks' },
    )
    .optional(),
  is_error: z.boolean().optional(),
});

const toolUseBlockSchema = z.object({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
});

const thinkingBlockSchema = z.object({
  type: z.literal('thinking'),
  thinking: z.string(),
  signature: z.string().optional(),
});

const contentBlockSchema = z.discriminatedUnion(
  'type',
  [
    textBlockSchema,
    imageBlockSchema,
    toolUseBlockSchema,
    toolResultBlockSchema,
    thinkingBlockSchema,
  ],
  { error: 'a block of type "text", "image", "tool_use", "tool_result" or "thinking"' },
);

const messageSchema = z.object({
  // A `system` message mid-conversation is kept where it stands (the chat template renders it).
  role: z.enum(['user', 'assistant', 'system']),
  content: z.union([z.string(), z.array(contentBlockSchema)], {
    error: 'a string or an array of content blocks',
  }),
});

const customToolSchema = z.object({
  type: z.literal('custom').optional(),
  name: z.string().min(1),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()),
  strict: z.boolean().optional(),
});

// Server tools (web search, code execution, ...) and Anthropic-defined client tools (bash, text
// editor, ...) carry a dated type and no schema: they are read, then dropped.
const typedToolSchema = z.looseObject({
  type: z.string().refine((type) => type !== 'custom'),
  name: z.string(),
});

const toolSchema = z.union([customToolSchema, typedToolSchema]);

/** A custom tool (the only kind lmtab runs) of a messages request. */
export type AnthropicCustomTool = z.output<typeof customToolSchema>;

/** Whether a request's tool is a custom tool, one with an `input_schema`. */
export function isCustomTool(tool: z.output<typeof toolSchema>): tool is AnthropicCustomTool {
  return tool.type === undefined || tool.type === 'custom';
}

const toolChoiceSchema = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
    z.strictObject({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
    z.strictObject({
      type: z.literal('tool'),
      name: z.string(),
      disable_parallel_tool_use: z.boolean().optional(),
    }),
    z.strictObject({ type: z.literal('none') }),
  ],
  { error: 'a tool choice of type "auto", "any", "tool" or "none"' },
);

const thinkingSchema = z.discriminatedUnion(
  'type',
  [
    // The budget is bounded by max_tokens, which covers thinking and answer together.
    z.strictObject({ type: z.literal('enabled'), budget_tokens: z.int().min(1) }),
    z.strictObject({ type: z.literal('disabled') }),
    z.strictObject({ type: z.literal('adaptive') }),
  ],
  { error: 'a thinking setting of type "enabled", "disabled" or "adaptive"' },
);

const systemSchema = z.union([z.string(), z.array(textBlockSchema)], {
  error: 'a string or an array of text blocks',
});

const outputConfigSchema = z.strictObject({
  // A hint: thinking here is on or off (`thinking`), with no graded effort, so it changes nothing.
  effort: z.enum(['low', 'medium', 'high', 'xhigh', 'max']).nullish(),
  format: z
    .strictObject({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) })
    .nullish(),
});

const thinkingTurnsSchema = z.union(
  [
    z.literal('all'),
    z.strictObject({ type: z.literal('all') }),
    z.strictObject({ type: z.literal('thinking_turns'), value: z.int().min(0) }),
  ],
  { error: '"all", {"type": "all"} or {"type": "thinking_turns", "value": ...}' },
);

const clearThinkingSchema = z.strictObject({
  type: z.literal('clear_thinking_20251015'),
  keep: thinkingTurnsSchema.optional(),
});

// Other edits (clearing old tool results past a token threshold) are accepted and not applied.
const otherEditSchema = z.looseObject({
  type: z.string().refine((type) => type !== 'clear_thinking_20251015'),
});

/** A validated `clear_thinking_20251015` context edit. */
export type ClearThinkingEdit = z.output<typeof clearThinkingSchema>;

/** Whether a context edit is `clear_thinking_20251015` (the one lmtab applies). */
export function isClearThinkingEdit(edit: { type: string }): edit is ClearThinkingEdit {
  return edit.type === 'clear_thinking_20251015';
}

const contextManagementSchema = z.looseObject({
  edits: z.array(z.union([clearThinkingSchema, otherEditSchema])).optional(),
});

/** The prompt fields shared by `/v1/messages` and `/v1/messages/count_tokens`. */
const promptShape = {
  model: z.string(),
  output_config: outputConfigSchema.optional(),
  // Prompt caching is automatic here (the engine reuses the longest cached prefix).
  cache_control: z
    .strictObject({ type: z.literal('ephemeral'), ttl: z.string().optional() })
    .nullish(),
  // A serving hint: every request runs at the tab's one speed.
  speed: z.enum(['standard', 'fast']).nullish(),
  messages: z.array(messageSchema).min(1),
  system: systemSchema.optional(),
  tools: z.array(toolSchema).optional(),
  tool_choice: toolChoiceSchema.optional(),
  thinking: thinkingSchema.optional(),
  context_management: contextManagementSchema.nullish(),
};

/** `POST /v1/messages` request body. */
export const messagesRequestSchema = z.strictObject({
  ...promptShape,
  max_tokens: z.int().min(1),
  stop_sequences: z.array(z.string()).optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.int().min(0).optional(),
  stream: z.boolean().optional(),
  metadata: z.strictObject({ user_id: z.string().nullish() }).optional(),
  // Only the tiers that change nothing here: every request runs on this tab.
  service_tier: z.enum(['auto', 'standard_only']).optional(),
});

/** `POST /v1/messages/count_tokens` request body. */
export const countTokensRequestSchema = z.strictObject(promptShape);

/** A validated `/v1/messages` request body. */
export type MessagesRequest = z.output<typeof messagesRequestSchema>;

/** The prompt part of a messages or count-tokens request. */
export type AnthropicPrompt = z.output<typeof countTokensRequestSchema>;

/** One content block of a request message. */
export type AnthropicContentBlock = z.output<typeof contentBlockSchema>;
