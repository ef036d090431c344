import { LmtabError } from '../errors/index.js';
import type { GgufSummary, ModelRecord } from '../store/index.js';

/** llama.cpp's pooling types by `{arch}.pooling_type` value, in the names wllama's loader takes. */
const poolingNames: Readonly<Record<number, EmbeddingPooling>> = { 1: 'mean', 2: 'cls', 3: 'last' };

/** How an embedding model turns its token vectors into one vector per input. */
export type EmbeddingPooling = 'mean' | 'cls' | 'last';

/**
 * llama.cpp architectures that are encoders only (bidirectional attention, no language-model
 * head): they embed and never generate text.
 */
const encoderArchitectures = new Set([
  'bert',
  'nomic-bert',
  'nomic-bert-moe',
  'jina-bert-v2',
  'jina-bert-v3',
  'neo-bert',
  'modern-bert',
  'eurobert',
]);

/**
 * The pooling an embedding model declares in its GGUF (`{arch}.pooling_type`), or undefined when it
 * is not an embedding model: no pooling type, `none` (one vector per token, which no embeddings API
 * here returns) or `rank` (a reranker).
 */
export function embeddingPooling(summary: GgufSummary): EmbeddingPooling | undefined {
  return summary.poolingType === undefined ? undefined : poolingNames[summary.poolingType];
}

/**
 * Whether a model is for embeddings only: an encoder architecture, or any model whose GGUF
 * declares a pooling type (as Ollama decides: such files are embedding models, e.g. a decoder
 * converted with last-token pooling).
 */
export function isEmbeddingOnly(summary: GgufSummary): boolean {
  return (
    encoderArchitectures.has(summary.architecture) ||
    embeddingPooling(summary) !== undefined ||
    isReranker(summary)
  );
}

/**
 * The capabilities `/api/show` and the GUI list for a stored model, as Ollama names them. Clients
 * look for `tools` before sending tools and `thinking` before `think`: `tools` when the GGUF's chat
 * template renders tools, `thinking` when it has thinking tags (as Ollama reads its templates);
 * `vision` and `audio` by its projector.
 */
export function modelCapabilities(
  record: ModelRecord,
  inputs: { vision: boolean; audio: boolean },
): string[] {
  if (isEmbeddingOnly(record.gguf)) {
    return embeddingPooling(record.gguf) === undefined ? [] : ['embedding'];
  }
  const template = record.gguf.chatTemplate ?? '';
  const capabilities = ['completion'];
  if (inputs.vision) capabilities.push('vision');
  if (inputs.audio) capabilities.push('audio');
  if (/\btools\b/.test(template)) capabilities.push('tools');
  if (templateThinks(template)) capabilities.push('thinking');
  return capabilities;
}

/** Whether a chat template renders thinking (has thinking tags or a thinking switch). */
export function templateThinks(template: string): boolean {
  return template.includes('<think>') || /enable_thinking|reasoning_content/.test(template);
}

/** llama.cpp's `LLAMA_POOLING_TYPE_RANK`: a reranker (a classifier head scores a query-document pair). */
const rankPooling = 4;

/** Whether a stored model is a reranker (its GGUF declares pooling `rank`). */
export function isReranker(summary: GgufSummary): boolean {
  return summary.poolingType === rankPooling;
}

/** Throws `invalid_request` (400), saying which models rerank, unless a stored model is a reranker. */
export function assertCanRerank(record: ModelRecord): void {
  if (isReranker(record.gguf)) return;
  const kind = isEmbeddingOnly(record.gguf)
    ? `an embedding model (pooling type ${record.gguf.poolingType ?? 'none'}; use /v1/embeddings for it)`
    : 'a chat model (use a chat endpoint for it)';
  throw new LmtabError(
    'invalid_request',
    `Model "${record.id}" cannot rerank: expected a reranker (a GGUF whose ` +
      `${record.gguf.architecture}.pooling_type is rank, such as bge-reranker or ` +
      `jina-reranker), received ${kind}.`,
    { param: 'model' },
  );
}

/** Throws `invalid_request` (400) unless a stored model can embed. */
export function assertCanEmbed(record: ModelRecord): EmbeddingPooling {
  const pooling = embeddingPooling(record.gguf);
  if (pooling !== undefined) return pooling;
  const declared =
    record.gguf.poolingType === undefined
      ? 'no pooling type'
      : `pooling type ${record.gguf.poolingType} (${record.gguf.poolingType === rankPooling ? 'rank: a reranker, for /v1/rerank' : 'none: one vector per token'})`;
  throw new LmtabError(
    'invalid_request',
    `Model "${record.id}" cannot embed: expected an embedding model (a GGUF whose ` +
      `${record.gguf.architecture}.pooling_type is mean, cls or last), received a ` +
      `${record.gguf.architecture} model with ${declared}. Use a chat endpoint for it, or an ` +
      'embedding model such as nomic-embed-text or bge.',
    { param: 'model' },
  );
}

/** Throws `invalid_request` (400) when a stored model can only embed, not generate text. */
export function assertCanGenerate(record: ModelRecord): void {
  if (!isEmbeddingOnly(record.gguf)) return;
  if (isReranker(record.gguf)) {
    throw new LmtabError(
      'invalid_request',
      `Model "${record.id}" is a reranker (${record.gguf.architecture}, pooling type rank): it ` +
        'cannot generate text. Expected a chat or completion model; send its query and ' +
        'documents to /v1/rerank instead.',
      { param: 'model' },
    );
  }
  throw new LmtabError(
    'invalid_request',
    `Model "${record.id}" is an embedding model (${record.gguf.architecture}` +
      `${record.gguf.poolingType === undefined ? '' : `, pooling type ${record.gguf.poolingType}`}): ` +
      'it cannot generate text. Expected a chat or completion model; send its inputs to ' +
      '/v1/embeddings or /api/embed instead.',
    { param: 'model' },
  );
}
