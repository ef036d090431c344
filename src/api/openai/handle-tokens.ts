import { assertAcceptsImages } from '../media/assert-accepts-images.js';
import { customizeRequest } from '../pipeline/customize-request.js';
import { jsonResponse } from '../encoders/json-response.js';
import { parseWire } from '../body/parse-wire.js';
import { imageOptions } from '../pipeline/protocol-handler.js';
import { readJsonBody } from '../body/read-json-body.js';
import type { RouteContext } from '../pipeline/route-context.js';
import { chatRequestToGenerate, countChatImages } from './chat/chat-request-to-generate.js';
import { llamaServerModel } from './llama-server-model.js';
import {
  applyTemplateRequestSchema,
  detokenizeRequestSchema,
  tokenizeRequestSchema,
} from './tokens-request-schema.js';

// llama-server's token routes, for clients that budget context by tokens: each answers with the
// model's own tokenizer and chat template, run by the engine (lmtab's CPU build), in llama-server's
// shapes. llama-server serves one model; lmtab takes an optional `model` (llama-server-model.ts).

/** `POST /tokenize`: `{tokens: [id]}`, or with `with_pieces` `{tokens: [{id, piece}]}`. */
export async function handleTokenize(context: RouteContext): Promise<Response> {
  const body = await readJsonBody(context.request, { maxBytes: context.maxBodyBytes });
  const wire = parseWire(tokenizeRequestSchema, body);
  const record = await llamaServerModel(context, wire.model);
  const result = await context.engine.tokenize(
    {
      model: record.id,
      content: wire.content,
      addSpecial: wire.add_special ?? false,
      parseSpecial: wire.parse_special ?? true,
      withPieces: wire.with_pieces ?? false,
    },
    { signal: context.signal },
  );
  const { tokens, pieces } = result;
  if (wire.with_pieces !== true || pieces === undefined) return jsonResponse({ tokens });
  return jsonResponse({
    tokens: tokens.map((id, i) => ({ id, piece: pieceJson(pieces[i]!) })),
  });
}

/** `POST /detokenize`: `{content}`, the tokens' text (bytes that are not UTF-8 become U+FFFD). */
export async function handleDetokenize(context: RouteContext): Promise<Response> {
  const body = await readJsonBody(context.request, { maxBytes: context.maxBodyBytes });
  const wire = parseWire(detokenizeRequestSchema, body);
  const record = await llamaServerModel(context, wire.model);
  const bytes = await context.engine.detokenize(
    { model: record.id, tokens: wire.tokens },
    { signal: context.signal },
  );
  return jsonResponse({ content: new TextDecoder().decode(bytes) });
}

/**
 * `POST /apply-template`: `{prompt}`, the text a chat completion request becomes with the model's
 * chat template: the same conversion as `/v1/chat/completions` (tools, the Modelfile's settings),
 * so its tokens are what that request would cost. Images appear as the engine's media marker.
 */
export async function handleApplyTemplate(context: RouteContext): Promise<Response> {
  const body = await readJsonBody(context.request, { maxBytes: context.maxBodyBytes });
  const parsed = parseWire(applyTemplateRequestSchema, body);
  const record = await llamaServerModel(context, parsed.model);
  const wire = { ...parsed, model: record.id };
  assertAcceptsImages(context.engine, record, countChatImages(wire), 'messages');
  const converted = await chatRequestToGenerate(wire, record.id, imageOptions(context));
  const request = customizeRequest(record, converted, { clock: context.clock });
  const prompt = await context.engine.applyTemplate(request, { signal: context.signal });
  return jsonResponse({ prompt });
}

/** A piece as llama-server writes it: its text when it is UTF-8, else its bytes. */
function pieceJson(bytes: Uint8Array): string | number[] {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return [...bytes];
  }
}
