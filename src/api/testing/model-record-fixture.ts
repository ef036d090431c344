import type { ModelRecord } from '../../store/index.js';

/** A complete stored model for tests (LFM2-350M-shaped), with fields overridable. */
export function modelRecordFixture(overrides: Partial<ModelRecord> = {}): ModelRecord {
  const id = overrides.id ?? 'lfm2-350m';
  return {
    id,
    source: { kind: 'import', fileName: `${id}.gguf` },
    files: [
      {
        fileId: `${id}-0`,
        name: `${id}.gguf`,
        size: 229_000_000,
        chunkSize: 16_777_216,
        chunks: 14,
        complete: true,
      },
    ],
    gguf: {
      architecture: 'lfm2',
      name: 'LFM2 350M',
      parameterCount: 354_483_968,
      contextLength: 128_000,
      embeddingLength: 1024,
      blockCount: 16,
      quantization: 'Q4_K_M',
      fileKind: 'model',
    },
    sizeBytes: 229_000_000,
    digest: 'a'.repeat(64),
    createdAt: Date.UTC(2026, 10, 21, 12, 0, 0),
    ...overrides,
  };
}

/**
 * The embedding models the API tests store: BERT with CLS pooling, nomic-bert with mean pooling,
 * and a BERT reranker (pooling rank).
 */
const embedderShapes = {
  'bge-reranker': {
    architecture: 'bert',
    parameterCount: 278_000_000,
    contextLength: 512,
    poolingType: 4,
  },
  'bge-small': {
    architecture: 'bert',
    parameterCount: 33_000_000,
    contextLength: 512,
    poolingType: 2,
  },
  'nomic-embed': {
    architecture: 'nomic-bert',
    parameterCount: 137_000_000,
    contextLength: 2048,
    poolingType: 1,
  },
} as const;

/** A stored embedding model for tests (`bge-small`, `nomic-embed`, or the reranker `bge-reranker`), 8 dimensions, F16. */
export function embedderRecordFixture(id: keyof typeof embedderShapes): ModelRecord {
  return modelRecordFixture({
    id,
    gguf: { ...embedderShapes[id], embeddingLength: 8, quantization: 'F16', fileKind: 'model' },
  });
}
