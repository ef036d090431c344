import { collectGeneration } from '../collect-generation.js';
import { customizeRequest } from '../customize-request.js';
import { findModel } from '../find-model.js';
import { jsonResponse } from '../json-response.js';
import { newId } from '../new-id.js';
import { parseWire } from '../parse-wire.js';
import { readJsonBody } from '../read-json-body.js';
import type { RouteContext } from '../route-context.js';
import { startGeneration } from '../start-generation.js';
import { completionRequestSchema } from './completion-request-schema.js';
import { completionRequestToGenerate } from './completion-request-to-generate.js';
import { sseResponse } from './sse-response.js';
import { encodeTextCompletion, encodeTextCompletionChunks } from './text-completion-encoder.js';

/** `POST /v1/completions`: a raw-prompt completion, as JSON or as an SSE stream. */
export async function handleCompletions(context: RouteContext): Promise<Response> {
  const body = await readJsonBody(context.request, { maxBytes: context.maxBodyBytes });
  const wire = parseWire(completionRequestSchema, body);
  const record = await findModel(context.store, wire.model);
  const events = await startGeneration(
    context.engine,
    customizeRequest(record, completionRequestToGenerate(wire, record.id), {
      clock: context.clock,
    }),
    context.signal,
  );
  const meta = {
    id: newId('cmpl-'),
    created: Math.floor(context.clock() / 1000),
    model: record.id,
  };
  if (wire.stream === true) {
    const includeUsage = wire.stream_options?.include_usage === true;
    return sseResponse(encodeTextCompletionChunks(meta, events, { includeUsage }), {
      onCancel: (reason) => context.abort(reason),
    });
  }
  return jsonResponse(encodeTextCompletion(meta, await collectGeneration(events)));
}
