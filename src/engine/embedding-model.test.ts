import { describe, expect, it } from 'vitest';
import { modelRecordFixture } from '../api/testing/model-record-fixture.js';
import {
  assertCanEmbed,
  assertCanGenerate,
  embeddingPooling,
  modelCapabilities,
} from './embedding-model.js';

const record = (architecture: string, poolingType?: number) =>
  modelRecordFixture({
    id: 'm',
    gguf: {
      architecture,
      parameterCount: 1,
      quantization: 'F16',
      fileKind: 'model',
      ...(poolingType === undefined ? {} : { poolingType }),
    },
  });

describe('embedding models from GGUF metadata', () => {
  it('reads the pooling type', () => {
    expect(embeddingPooling(record('bert', 1).gguf)).toBe('mean');
    expect(embeddingPooling(record('bert', 2).gguf)).toBe('cls');
    expect(embeddingPooling(record('qwen3', 3).gguf)).toBe('last');
    expect(embeddingPooling(record('bert', 0).gguf)).toBeUndefined();
    expect(embeddingPooling(record('bert', 4).gguf)).toBeUndefined();
  });

  it('lists capabilities as Ollama does', () => {
    const text = { vision: false, audio: false };
    expect(modelCapabilities(record('bert', 1), text)).toEqual(['embedding']);
    expect(modelCapabilities(record('lfm2', 3), text)).toEqual(['embedding']);
    expect(modelCapabilities(record('bert', 4), text)).toEqual([]);
    expect(modelCapabilities(record('lfm2'), { vision: true, audio: false })).toEqual([
      'completion',
      'vision',
    ]);
    expect(modelCapabilities(record('lfm2'), { vision: false, audio: true })).toEqual([
      'completion',
      'audio',
    ]);
  });

  it('refuses to embed with a chat model and to generate with an embedding model', () => {
    expect(() => assertCanEmbed(record('lfm2'))).toThrow(/cannot embed.*no pooling type/);
    expect(() => assertCanEmbed(record('bert', 4))).toThrow(/rank: a reranker/);
    expect(() => assertCanGenerate(record('bert'))).toThrow(/cannot generate text/);
    expect(() => assertCanGenerate(record('lfm2', 3))).toThrow(/pooling type 3/);
    expect(() => assertCanGenerate(record('lfm2'))).not.toThrow();
  });
});
