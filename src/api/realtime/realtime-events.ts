import { z } from 'zod';

// The client events of OpenAI's Realtime API (GA names, which llama-server and wllama follow), as
// lmtab reads them. Fields that change an answer are honoured or refused by name; the
// bookkeeping real clients send (tracing, noise reduction, metadata) is accepted and ignored.

const pcmFormat = z.object(
  {
    type: z.literal('audio/pcm', {
      error:
        '"audio/pcm" (lmtab reads and writes 16-bit PCM at 24 kHz; audio/pcmu and audio/pcma are not decoded)',
    }),
    rate: z.literal(24_000, { error: '24000 (the one rate of audio/pcm)' }).optional(),
  },
  {
    error:
      '{"type": "audio/pcm", "rate": 24000} (lmtab reads and writes 16-bit PCM; audio/pcmu and audio/pcma are not decoded)',
  },
);

const serverVad = z.strictObject({
  type: z.literal('server_vad', {
    error:
      '"server_vad", or turn_detection null (lmtab detects turns by loudness; semantic_vad needs a model of its own)',
  }),
  threshold: z.number().min(0).max(1).optional(),
  prefix_padding_ms: z.number().int().min(0).max(10_000).optional(),
  silence_duration_ms: z.number().int().min(20).max(10_000).optional(),
  create_response: z.boolean().optional(),
  interrupt_response: z.boolean().optional(),
  idle_timeout_ms: z.null({ error: 'null (lmtab does not prompt a silent user)' }).optional(),
});

export type ServerVad = z.output<typeof serverVad>;

const turnDetection = z.union([serverVad, z.null()], {
  error:
    '{"type": "server_vad", ...} or null (lmtab detects turns by loudness; semantic_vad needs a model of its own)',
});

const transcription = z
  .looseObject({
    model: z.string().optional(),
    language: z
      .string()
      .regex(/^[a-z]{2,3}$/i, { error: 'an ISO-639-1 code such as "en"' })
      .optional(),
    prompt: z.string().optional(),
  })
  .nullable();

export type TranscriptionConfig = z.output<typeof transcription>;

const functionTool = z.strictObject({
  type: z.literal('function', {
    error: '"function" (lmtab calls no MCP servers; give their tools as functions)',
  }),
  name: z.string().min(1).max(64),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
});

export type RealtimeFunctionTool = z.output<typeof functionTool>;

const toolChoice = z.union(
  [
    z.enum(['auto', 'none', 'required']),
    z.object({ type: z.literal('function'), name: z.string() }),
  ],
  { error: '"auto", "none", "required" or {"type": "function", "name": ...}' },
);

export type RealtimeToolChoice = z.output<typeof toolChoice>;

const maxOutputTokens = z.union([z.number().int().min(1).max(4096), z.literal('inf')], {
  error: 'an integer from 1 to 4096, or "inf"',
});

const outputModalities = z
  .array(z.enum(['text', 'audio']))
  .length(1, { error: 'one of ["text"] or ["audio"] (OpenAI takes one)' });

/** `session.update`'s `session`: what lmtab honours, and the bookkeeping it ignores. */
export const sessionUpdateSchema = z.strictObject({
  type: z.literal('realtime', { error: '"realtime" (transcription-only sessions are not served)' }),
  model: z.string().optional(),
  instructions: z.string().optional(),
  output_modalities: outputModalities.optional(),
  max_output_tokens: maxOutputTokens.optional(),
  tools: z.array(functionTool).optional(),
  tool_choice: toolChoice.optional(),
  audio: z
    .strictObject({
      input: z
        .strictObject({
          format: pcmFormat.optional(),
          turn_detection: turnDetection.optional(),
          transcription: transcription.optional(),
          // Accepted and ignored: lmtab filters nothing before detection.
          noise_reduction: z.unknown().optional(),
        })
        .optional(),
      output: z
        .strictObject({
          format: pcmFormat.optional(),
          voice: z.union([z.string(), z.object({ id: z.string() })]).optional(),
          speed: z.literal(1, { error: '1 (the model speaks at its own pace)' }).optional(),
        })
        .optional(),
    })
    .optional(),
  // Accepted and ignored: bookkeeping of OpenAI's service.
  tracing: z.unknown().optional(),
  truncation: z
    .literal('auto', { error: '"auto" (lmtab keeps the whole conversation)' })
    .optional(),
  include: z
    .array(z.never({ error: 'nothing (lmtab gives no logprobs of transcripts)' }))
    .optional(),
  prompt: z.null({ error: 'null (lmtab has no stored prompts)' }).optional(),
});

export type SessionUpdate = z.output<typeof sessionUpdateSchema>;

const inputText = z.object({ type: z.literal('input_text'), text: z.string() });
const inputAudio = z.object({
  type: z.literal('input_audio'),
  audio: z.string().optional(),
  transcript: z.string().nullish(),
});
const outputText = z.object({ type: z.enum(['output_text', 'text']), text: z.string() });
const outputAudio = z.object({
  type: z.literal('output_audio'),
  audio: z.string().nullish(),
  transcript: z.string().nullish(),
});

const itemBase = { id: z.string().max(64).optional(), object: z.string().optional() };

/** The items a client adds with `conversation.item.create` (or a response's `input`). */
export const itemSchema = z.union(
  [
    z.discriminatedUnion(
      'role',
      [
        z.object({
          ...itemBase,
          type: z.literal('message'),
          role: z.literal('user'),
          content: z
            .array(
              z.discriminatedUnion('type', [inputText, inputAudio], {
                error:
                  'an input_text or input_audio part (lmtab reads no images in a Realtime session)',
              }),
            )
            .min(1),
          status: z.string().optional(),
        }),
        z.object({
          ...itemBase,
          type: z.literal('message'),
          role: z.literal('system'),
          content: z.array(inputText).min(1),
          status: z.string().optional(),
        }),
        z.object({
          ...itemBase,
          type: z.literal('message'),
          role: z.literal('assistant'),
          content: z.array(z.discriminatedUnion('type', [outputText, outputAudio])).min(1),
          status: z.string().optional(),
        }),
      ],
      { error: 'a message of role user, system or assistant' },
    ),
    z.object({
      ...itemBase,
      type: z.literal('function_call'),
      call_id: z.string(),
      name: z.string(),
      arguments: z.string(),
      status: z.string().optional(),
    }),
    z.object({
      ...itemBase,
      type: z.literal('function_call_output'),
      call_id: z.string(),
      output: z.string(),
      status: z.string().optional(),
    }),
  ],
  { error: 'a message, function_call or function_call_output item' },
);

export type ClientItem = z.output<typeof itemSchema>;

/** `response.create`'s `response`: overrides of the session for one answer. */
export const responseParamsSchema = z.strictObject({
  instructions: z.string().optional(),
  output_modalities: outputModalities.optional(),
  max_output_tokens: maxOutputTokens.optional(),
  tools: z.array(functionTool).optional(),
  tool_choice: toolChoice.optional(),
  conversation: z.enum(['auto', 'none']).optional(),
  input: z
    .array(z.union([itemSchema, z.object({ type: z.literal('item_reference'), id: z.string() })]))
    .optional(),
  audio: z.unknown().optional(),
  // Accepted: returned with the response.
  metadata: z.record(z.string(), z.string()).nullish(),
  prompt: z.null({ error: 'null (lmtab has no stored prompts)' }).optional(),
});

export type ResponseParams = z.output<typeof responseParamsSchema>;

/** Every client event: its `type`, and the fields lmtab reads of it. */
export const clientEventSchema = z.discriminatedUnion(
  'type',
  [
    z.object({
      type: z.literal('session.update'),
      event_id: z.string().optional(),
      session: sessionUpdateSchema,
    }),
    z.object({
      type: z.literal('input_audio_buffer.append'),
      event_id: z.string().optional(),
      audio: z.string(),
    }),
    z.object({ type: z.literal('input_audio_buffer.commit'), event_id: z.string().optional() }),
    z.object({ type: z.literal('input_audio_buffer.clear'), event_id: z.string().optional() }),
    z.object({
      type: z.literal('conversation.item.create'),
      event_id: z.string().optional(),
      previous_item_id: z.string().nullish(),
      item: itemSchema,
    }),
    z.object({
      type: z.literal('conversation.item.delete'),
      event_id: z.string().optional(),
      item_id: z.string(),
    }),
    z.object({
      type: z.literal('conversation.item.retrieve'),
      event_id: z.string().optional(),
      item_id: z.string(),
    }),
    z.object({
      type: z.literal('conversation.item.truncate'),
      event_id: z.string().optional(),
      item_id: z.string(),
      content_index: z.number().int().min(0),
      audio_end_ms: z.number().int().min(0),
    }),
    z.object({
      type: z.literal('response.create'),
      event_id: z.string().optional(),
      response: responseParamsSchema.optional(),
    }),
    z.object({
      type: z.literal('response.cancel'),
      event_id: z.string().optional(),
      response_id: z.string().optional(),
    }),
  ],
  {
    error:
      'a client event: session.update, input_audio_buffer.append/commit/clear, conversation.item.create/delete/retrieve/truncate, response.create or response.cancel',
  },
);

export type ClientEvent = z.output<typeof clientEventSchema>;
