import type { MlcSource, ModelRecord } from '../../store/index.js';

/** A complete stored MLC model for tests (Qwen2.5-0.5B-shaped), with source fields overridable. */
export function mlcRecordFixture(
  id = 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC',
  source: Partial<MlcSource> = {},
): ModelRecord {
  const file = (name: string, size: number) => ({
    fileId: `${id}-${name}`,
    name,
    size,
    chunkSize: 16_777_216,
    chunks: Math.max(1, Math.ceil(size / 16_777_216)),
    complete: true,
  });
  return {
    id,
    format: 'mlc',
    source: {
      kind: 'mlc',
      catalogId: id,
      modelUrl: `https://huggingface.co/mlc-ai/${id}/resolve/main/`,
      modelLibUrl: 'https://example.com/libs/Qwen2-0.5B-Instruct-q4f32_1-ctx4k_cs1k-webgpu.wasm',
      libFile: 'lib/Qwen2-0.5B-Instruct-q4f32_1-ctx4k_cs1k-webgpu.wasm',
      requiredFeatures: [],
      vision: false,
      overrides: { context_window_size: 4096 },
      ...source,
    },
    files: [
      file('mlc-chat-config.json', 1_200),
      file('tensor-cache.json', 90_000),
      file('tokenizer.json', 7_000_000),
      file('params_shard_0.bin', 32_000_000),
      file('lib/Qwen2-0.5B-Instruct-q4f32_1-ctx4k_cs1k-webgpu.wasm', 4_000_000),
    ],
    gguf: {
      architecture: 'qwen2',
      name: id,
      parameterCount: 494_032_768,
      contextLength: 4096,
      embeddingLength: 896,
      blockCount: 24,
      quantization: 'q4f32_1',
      fileKind: 'model',
    },
    sizeBytes: 43_091_200,
    createdAt: Date.UTC(2026, 10, 21, 12, 0, 0),
  };
}
