import { protocolHandler } from '../../pipeline/protocol-handler.js';
import { answerOllama } from './answer-ollama.js';
import { generateRequestSchema } from './generate-request-schema.js';
import { generateRequestToGenerate } from './generate-request-to-generate.js';

/** `POST /api/generate`: a completion as NDJSON (default) or one JSON object. */
export const handleGenerate = protocolHandler({
  schema: generateRequestSchema,
  images: (wire) => ({ count: wire.images?.length ?? 0, param: 'images' }),
  convert: async (wire, record, context) => ({
    request: await generateRequestToGenerate(wire, record.id, {
      maxImageBytes: context.maxBodyBytes,
    }),
  }),
  options: (wire) => wire.options ?? undefined,
  answer: ({ wire, record, request, start }, context) =>
    answerOllama(context, {
      kind: 'generate',
      model: record.id,
      request,
      start,
      empty: (wire.prompt ?? '') === '' && (wire.images?.length ?? 0) === 0,
      keepAlive: wire.keep_alive,
      stream: wire.stream,
    }),
});
