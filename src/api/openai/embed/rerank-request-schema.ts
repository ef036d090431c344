import { z } from 'zod';
import { unknownFieldsError } from '../../body/unknown-fields-error.js';

/** Cohere's limit on documents in one rerank request. */
export const maxRerankDocuments = 1000;

/** A document: its text, or an object with a `text` field (Cohere v1's and Jina's shape). */
const document = z.union(
  [
    z.string(),
    z.looseObject({ text: z.string() }, { error: 'an object with a string field text' }),
  ],
  { error: 'a string, or an object with a string field text' },
);

const known = [
  'model',
  'query',
  'documents',
  'top_n',
  'return_documents',
  'rank_fields',
  'max_tokens_per_doc',
  'priority',
];

/**
 * `POST /v1/rerank` (and llama-server's `/v1/reranking`, `/rerank`, `/reranking`): llama-server's
 * shape, which is Cohere's and Jina's. Strict: a field lmtab does not know is refused, not dropped.
 * `priority` (Cohere's scheduling hint) is accepted and has no effect here; `rank_fields` may only
 * name `text`; `max_tokens_per_doc` is honoured by refusing documents that could be longer (lmtab
 * does not cut documents).
 */
export const rerankRequestSchema = z.strictObject(
  {
    model: z.string(),
    query: z.string().min(1, { error: 'a non-empty string' }),
    documents: z
      .array(document, { error: 'an array of strings or of objects with a text field' })
      .min(1, { error: 'at least one document' })
      .max(maxRerankDocuments, { error: `at most ${maxRerankDocuments} documents` }),
    top_n: z.int().min(1).nullish(),
    return_documents: z.boolean().nullish(),
    rank_fields: z
      .array(z.literal('text', { error: 'text (lmtab ranks on the text field only)' }))
      .nullish(),
    max_tokens_per_doc: z.int().min(1).nullish(),
    priority: z.number().nullish(),
  },
  { error: unknownFieldsError(known) },
);

/** A validated rerank request body. */
export type RerankWireRequest = z.output<typeof rerankRequestSchema>;
