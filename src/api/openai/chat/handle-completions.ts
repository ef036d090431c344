import { collectGeneration } from '../../pipeline/collect-generation.js';
import { jsonResponse } from '../../encoders/json-response.js';
import { newId } from '../../encoders/new-id.js';
import { protocolHandler } from '../../pipeline/protocol-handler.js';
import { completionRequestSchema } from './completion-request-schema.js';
import { completionRequestToGenerate } from './completion-request-to-generate.js';
import { sseResponse } from './sse-response.js';
import { encodeTextCompletion, encodeTextCompletionChunks } from './text-completion-encoder.js';

/** `POST /v1/completions`: a raw-prompt completion, as JSON or as an SSE stream. */
export const handleCompletions = protocolHandler({
  schema: completionRequestSchema,
  convert: (wire, record) => ({ request: completionRequestToGenerate(wire, record.id) }),
  async answer({ wire, record, start }, context) {
    const events = await start();
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
  },
});
