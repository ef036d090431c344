import { assertCanRerank } from '../../../engine/index.js';
import { LmtabError } from '../../../errors/index.js';
import { findModel } from '../../pipeline/find-model.js';
import { jsonResponse } from '../../encoders/json-response.js';
import { newId } from '../../encoders/new-id.js';
import { parseWire } from '../../body/parse-wire.js';
import { readJsonBody } from '../../body/read-json-body.js';
import type { RouteContext } from '../../pipeline/route-context.js';
import { rerankRequestSchema, type RerankWireRequest } from './rerank-request-schema.js';

/** One ranked document as llama-server, Cohere and Jina answer it. */
interface RankedDocument {
  index: number;
  relevance_score: number;
  /** With `return_documents`: the document as sent, a string as `{text}`. */
  document?: Record<string, unknown>;
}

/**
 * `POST /v1/rerank`: the documents ranked by a reranker's score against the query, most relevant
 * first, the first `top_n` of them; each with its index in the request and, when asked, itself.
 * One answer for llama-server's, Jina's and Cohere's clients: `object`, `model` and `usage` as
 * llama-server answers, `meta` as Cohere does.
 */
export async function handleRerank(context: RouteContext): Promise<Response> {
  const body = await readJsonBody(context.request, { maxBytes: context.maxBodyBytes });
  const wire = parseWire(rerankRequestSchema, body);
  const texts = wire.documents.map((document) =>
    typeof document === 'string' ? document : document.text,
  );
  checkTokensPerDocument(wire, texts);
  const record = await findModel(context.store, wire.model);
  assertCanRerank(record);
  const result = await context.engine.rerank(
    { model: record.id, query: wire.query, documents: texts },
    { signal: context.signal },
  );
  const ranked = result.scores
    .map((score, index): RankedDocument => ({ index, relevance_score: score }))
    // A stable sort: equal scores keep the documents' order.
    .sort((a, b) => b.relevance_score - a.relevance_score)
    .slice(0, wire.top_n ?? texts.length);
  if (wire.return_documents === true) {
    for (const entry of ranked) {
      const sent = wire.documents[entry.index]!;
      entry.document = typeof sent === 'string' ? { text: sent } : sent;
    }
  }
  return jsonResponse({
    id: newId('rerank-'),
    object: 'list',
    model: record.id,
    results: ranked,
    usage: { prompt_tokens: result.promptTokens, total_tokens: result.promptTokens },
    // Cohere's clients require its `meta` (the AI SDK's Cohere provider refuses an answer without).
    meta: { billed_units: { input_tokens: result.promptTokens } },
  });
}

/**
 * `max_tokens_per_doc`, honoured without a tokenizer: a document of at most that many UTF-8 bytes
 * has at most that many tokens; a longer one might need cutting, which lmtab does not do.
 */
function checkTokensPerDocument(wire: RerankWireRequest, texts: readonly string[]): void {
  const limit = wire.max_tokens_per_doc;
  if (limit === undefined || limit === null) return;
  const encoder = new TextEncoder();
  const index = texts.findIndex((text) => encoder.encode(text).length > limit);
  if (index < 0) return;
  throw new LmtabError(
    'invalid_request',
    `max_tokens_per_doc: lmtab does not cut documents; expected documents that cannot exceed ${limit} tokens (at most ${limit} UTF-8 bytes), received document ${index} of ${encoder.encode(texts[index]!).length} bytes. Leave max_tokens_per_doc out, or send shorter documents.`,
    { param: 'max_tokens_per_doc' },
  );
}
