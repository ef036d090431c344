import { describe, expect, it } from 'vitest';
import { buildNames } from './cpu-build.js';
import type { EngineInfo } from '../engine.js';
import { headLengths, kvCacheFromLog, kvCacheParams } from './kv-cache.js';

const cpu: EngineInfo = {
  engine: 'wllama',
  backend: 'wasm',
  build: buildNames.cpu,
  threads: 2,
  gpuLayers: 0,
  crossOriginIsolated: true,
};

describe('headLengths', () => {
  it('takes the key and value lengths when the metadata has them', () => {
    const metadata = new Map<string, unknown>([
      ['general.architecture', 'lfm2'],
      ['lfm2.embedding_length', 1024],
      ['lfm2.attention.head_count', 16],
      ['lfm2.attention.key_length', 96],
      ['lfm2.attention.value_length', 128],
    ]);
    expect(headLengths(metadata as never)).toEqual({ key: 96, value: 128 });
  });

  it('falls back to the embedding length over the head count, as llama.cpp does', () => {
    const metadata = new Map<string, unknown>([
      ['general.architecture', 'lfm2'],
      ['lfm2.embedding_length', 1024],
      ['lfm2.attention.head_count', 16],
      // LFM2 lists KV heads per layer, 0 for its convolution layers.
      ['lfm2.attention.head_count_kv', [0, 0, 8, 0]],
    ]);
    expect(headLengths(metadata as never)).toEqual({ key: 64, value: 64 });
  });

  it('is undefined when the metadata cannot say', () => {
    expect(headLengths(new Map() as never)).toBeUndefined();
    const noHeads = new Map<string, unknown>([
      ['general.architecture', 'x'],
      ['x.embedding_length', 64],
    ]);
    expect(headLengths(noHeads as never)).toBeUndefined();
  });
});

describe('kvCacheParams', () => {
  it("asks a Q8_0 cache with flash attention on lmtab's CPU build when heads fit Q8_0 blocks", () => {
    expect(kvCacheParams(cpu, { key: 64, value: 64 })).toEqual({
      cache_type_k: 'q8_0',
      cache_type_v: 'q8_0',
      flash_attn: true,
    });
  });

  it("keeps llama.cpp's default for heads that do not fit, unknown heads, and other builds", () => {
    expect(kvCacheParams(cpu, { key: 16, value: 16 })).toEqual({});
    expect(kvCacheParams(cpu, { key: 64, value: 48 })).toEqual({});
    expect(kvCacheParams(cpu, undefined)).toEqual({});
    // The person chose llama.cpp's default in the Developer tab.
    expect(kvCacheParams(cpu, { key: 64, value: 64 }, 'f16')).toEqual({});
    expect(kvCacheParams({ ...cpu, build: buildNames.stock }, { key: 64, value: 64 })).toEqual({});
    const gpu = { ...cpu, backend: 'webgpu' as const, build: buildNames.stock };
    expect(kvCacheParams(gpu, { key: 64, value: 64 })).toEqual({});
  });
});

describe('kvCacheFromLog', () => {
  it("reads the cache's types from llama.cpp's load line", () => {
    const line =
      'llama_kv_cache:        CPU KV buffer size =     4.25 MiB ... llama_kv_cache: size =    4.25 MiB (  4096 cells,   2 layers,  4/1 seqs), K (q8_0):    2.12 MiB, V (q8_0):    2.12 MiB';
    expect(kvCacheFromLog(['other', line])).toBe('q8_0');
    expect(kvCacheFromLog(['K (f16):    8.00 MiB, V (q8_0):    4.25 MiB'])).toBe('f16/q8_0');
    expect(kvCacheFromLog(['nothing here'])).toBeUndefined();
  });
});
