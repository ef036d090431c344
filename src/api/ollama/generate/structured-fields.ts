import { z } from 'zod';
import type { GenerateRequest, OutputFormat } from '../../../engine/index.js';
import { assertEnforceableSchema } from '../../tools/assert-enforceable-schema.js';

/** `format`: `"json"` or a JSON Schema object (Ollama's structured outputs). */
export const formatSchema = z.union(
  [z.literal('json'), z.literal(''), z.record(z.string(), z.unknown())],
  { error: '"json" or a JSON Schema object' },
);

/** `think`: on or off; Ollama's effort levels (GPT-OSS) mean on. */
export const thinkSchema = z.union([z.boolean(), z.enum(['low', 'medium', 'high'])], {
  error: 'true, false, "low", "medium" or "high"',
});

/** The fields `/api/chat` and `/api/generate` share beyond sampling. */
export const structuredFields = {
  format: formatSchema.nullish(),
  think: thinkSchema.nullish(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.int().min(0).max(20).nullish(),
};

interface StructuredWire {
  format?: z.output<typeof formatSchema> | null;
  think?: z.output<typeof thinkSchema> | null;
  logprobs?: boolean | null;
  top_logprobs?: number | null;
}

/** Applies `format`, `think`, `logprobs` and `top_logprobs` to a generate request. */
export function applyStructuredFields(wire: StructuredWire, request: GenerateRequest): void {
  const format = toFormat(wire.format);
  if (format !== undefined) request.format = format;
  if (wire.think != null) request.thinking = wire.think !== false;
  if (wire.logprobs === true) request.logprobs = { top: wire.top_logprobs ?? 0 };
}

function toFormat(format: StructuredWire['format']): OutputFormat | undefined {
  if (format == null || format === '') return undefined;
  if (format === 'json') return { type: 'json' };
  assertEnforceableSchema(format, 'format');
  return { type: 'json', schema: format };
}
