import { LmtabError } from '../../../errors/index.js';
import { checkEmbeddingRequest } from '../../pipeline/embedding-dimensions.js';
import { findModel } from '../../pipeline/find-model.js';
import { jsonResponse } from '../../encoders/json-response.js';
import { parseWire } from '../../body/parse-wire.js';
import { readJsonBody } from '../../body/read-json-body.js';
import type { RouteContext } from '../../pipeline/route-context.js';
import { embedRequestSchema } from './embed-request-schema.js';
import { runEmbed } from './run-embed.js';

const nanosPerMs = 1_000_000;

/** `POST /api/embed`: one vector per input, in order; inputs over the context are cut by default. */
export async function handleEmbed(context: RouteContext): Promise<Response> {
  const body = await readJsonBody(context.request, { maxBytes: context.maxBodyBytes });
  const wire = parseWire(embedRequestSchema, body);
  const record = await findModel(context.store, wire.model);
  checkEmbeddingRequest(record, wire.dimensions);
  const input = wire.input ?? [];
  // Nothing to embed (no input, "" or []) only loads the model.
  const inputs = typeof input === 'string' ? (input === '' ? [] : [input]) : input;
  const empty = inputs.indexOf('');
  if (empty >= 0) {
    throw new LmtabError(
      'invalid_request',
      `Invalid \`input[${empty}]\`: expected a non-empty string, received "".`,
      { param: `input[${empty}]` },
    );
  }
  const result = await runEmbed(context, {
    model: record.id,
    inputs,
    truncate: wire.truncate ?? true,
    keepAlive: wire.keep_alive,
    contextLength: wire.options?.num_ctx ?? undefined,
  });
  return jsonResponse({
    model: record.id,
    embeddings: result.embeddings.map((vector) => Array.from(vector)),
    total_duration: Math.round(result.timings.totalMs * nanosPerMs),
    load_duration: Math.round(result.timings.loadMs * nanosPerMs),
    prompt_eval_count: result.promptTokens,
  });
}
