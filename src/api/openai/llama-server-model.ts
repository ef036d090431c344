import { isEmbeddingOnly } from '../../engine/index.js';
import { LmtabError } from '../../errors/index.js';
import { isComplete, type ModelRecord } from '../../store/index.js';
import { findModel } from '../pipeline/find-model.js';
import { isStagedBlob } from '../pipeline/blob-digest.js';
import type { RouteContext } from '../pipeline/route-context.js';

/** A stored model whose engine has a tokenizer: a complete chat or completion model. */
const canTokenize = (record: ModelRecord) =>
  isComplete(record) && !isStagedBlob(record) && !isEmbeddingOnly(record.gguf);

/**
 * The model a llama-server route (`/tokenize`, `/props`, ...) is for. llama-server serves one
 * model; lmtab serves the one the request names, else the chat model loaded now, else the only
 * stored one, and otherwise asks for a name. Embedding models and rerankers are refused: their
 * engine (the embedder) has no token calls.
 */
export async function llamaServerModel(
  context: RouteContext,
  named: string | null | undefined,
): Promise<ModelRecord> {
  if (named !== undefined && named !== null) {
    const record = await findModel(context.store, named);
    if (!canTokenize(record)) {
      throw new LmtabError(
        'invalid_request',
        `Model "${record.id}": lmtab's llama-server routes (/tokenize, /detokenize, /apply-template, /props) expected a chat or completion model, received an embedding model or reranker (${record.gguf.architecture}${record.gguf.poolingType === undefined ? '' : `, pooling type ${record.gguf.poolingType}`}).`,
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
