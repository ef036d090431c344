import { isEmbeddingOnly } from '../../engine/index.js';
import { LmtabError } from '../../errors/index.js';
import { isComplete, type ModelRecord } from '../../store/index.js';
import { assertAcceptsImages } from '../assert-accepts-images.js';
import { customizeRequest } from '../customize-request.js';
import { findModel } from '../find-model.js';
import { jsonResponse } from '../json-response.js';
import { isStagedBlob } from '../ollama/blob-digest.js';
import { parseWire } from '../parse-wire.js';
import { imageOptions } from '../protocol-handler.js';
import { readJsonBody } from '../read-json-body.js';
import type { RouteContext } from '../route-context.js';
import { chatRequestToGenerate, countChatImages } from './chat-request-to-generate.js';
import {
  applyTemplateRequestSchema,
  detokenizeRequestSchema,
  tokenizeRequestSchema,
} from './tokens-request-schema.js';

// llama-server's token routes, for clients that budget context by tokens: each answers with the
// model's own tokenizer and chat template, run by the engine (lmtab's CPU build), in llama-server's
// shapes. llama-server serves one model; lmtab takes an optional `model`, else the loaded one.

/** `POST /tokenize`: `{tokens: [id]}`, or with `with_pieces` `{tokens: [{id, piece}]}`. */
export async function handleTokenize(context: RouteContext): Promise<Response> {
  const body = await readJsonBody(context.request, { maxBytes: context.maxBodyBytes });
  const wire = parseWire(tokenizeRequestSchema, body);
  const record = await tokensModel(context, wire.model);
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
  const record = await tokensModel(context, wire.model);
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
  const record = await tokensModel(context, parsed.model);
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

/** A stored model whose engine has a tokenizer: a complete chat or completion model. */
const canTokenize = (record: ModelRecord) =>
  isComplete(record) && !isStagedBlob(record) && !isEmbeddingOnly(record.gguf);

/**
 * The model a token request is for: the one it names, else the chat model loaded now, else the
 * only stored one. Embedding models and rerankers are refused: their engine (the embedder) has no
 * token routes.
 */
async function tokensModel(
  context: RouteContext,
  named: string | null | undefined,
): Promise<ModelRecord> {
  if (named !== undefined && named !== null) {
    const record = await findModel(context.store, named);
    if (!canTokenize(record)) {
      throw new LmtabError(
        'invalid_request',
        `Model "${record.id}" is an embedding model or reranker (pooling type ${record.gguf.poolingType ?? 'unknown'}): lmtab's token routes expected a chat or completion model.`,
        { param: 'model' },
      );
    }
    return record;
  }
  const records = (await context.store.list()).filter(canTokenize);
  const loaded = new Set(context.engine.loaded().map((model) => model.model));
  const resident = records.filter((record) => loaded.has(record.id));
  const only = resident.length === 1 ? resident[0] : records.length === 1 ? records[0] : undefined;
  if (only !== undefined) return only;
  const ids = records.map((record) => record.id);
  throw new LmtabError(
    'invalid_request',
    ids.length === 0
      ? 'model: no chat model is stored, so no tokenizer can answer. Pull a chat model first.'
      : `model: expected the model whose tokenizer to use, since ${resident.length === 0 ? 'none' : resident.length} of the ${ids.length} stored chat models ${resident.length === 0 ? 'is loaded' : 'are loaded'}; received none. Name one of: ${ids.slice(0, 10).join(', ')}${ids.length > 10 ? ', ...' : ''}.`,
    { param: 'model' },
  );
}
