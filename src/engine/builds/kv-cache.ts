import type { LoadModelParams } from '@wllama/wllama/esm/types/types.js';
import type { GgufMetadataValue } from '../../store/index.js';
import { buildNames } from './cpu-build.js';
import type { EngineInfo, EngineSettings } from '../engine.js';

/** Elements per block of llama.cpp's Q8_0 type: a Q8_0 cache row must be a whole number of them. */
const q8BlockSize = 32;

/** Lengths of one attention head's key and value vectors, from a model's GGUF metadata. */
export interface HeadLengths {
  key: number;
  value: number;
}

/**
 * A model's attention head lengths: `{arch}.attention.key_length` and `value_length` when present,
 * otherwise the embedding length over the head count (llama.cpp's own default). Undefined when the
 * metadata says neither (no attention, or an unknown layout).
 */
export function headLengths(metadata: Map<string, GgufMetadataValue>): HeadLengths | undefined {
  const architecture = metadata.get('general.architecture');
  if (typeof architecture !== 'string') return undefined;
  const number = (key: string): number | undefined => {
    const value = metadata.get(`${architecture}.${key}`);
    if (typeof value === 'number' || typeof value === 'bigint') return Number(value);
    // Per-layer arrays (LFM2's KV head counts): the first non-zero entry.
    if (Array.isArray(value)) return value.map(Number).find((n) => n > 0);
    return undefined;
  };
  const embedding = number('embedding_length');
  const heads = number('attention.head_count');
  const fallback = embedding && heads ? embedding / heads : undefined;
  const key = number('attention.key_length') ?? fallback;
  const value = number('attention.value_length') ?? fallback;
  return key && value ? { key, value } : undefined;
}

/**
 * The KV cache of a chat load. On lmtab's CPU build, keys and values in Q8_0 with flash attention
 * (llama.cpp needs it for a quantized V cache): ggml's wasm path has SIMD kernels for Q8_0 but none
 * for F16, llama.cpp's default, whose values it converts one at a time. With 512 tokens of context,
 * decode on the 350M-shaped file ran 14.3 tok/s on an F16 cache and 21.0 on a Q8_0 one (1 thread;
 * bench/NOTES.md), and the cache takes half the memory. A head length that is not a whole number
 * of Q8_0 blocks cannot be cached in Q8_0 (llama.cpp refuses the context), so such a model, like
 * every load off the CPU build, keeps llama.cpp's default; so does every load when the person
 * chose `f16` (the Developer tab's load settings).
 */
export function kvCacheParams(
  info: Pick<EngineInfo, 'build'>,
  heads: HeadLengths | undefined,
  choice: EngineSettings['kvCache'] = 'auto',
): Pick<LoadModelParams, 'cache_type_k' | 'cache_type_v' | 'flash_attn'> {
  if (choice === 'f16' || info.build !== buildNames.cpu || !heads) return {};
  if (heads.key % q8BlockSize !== 0 || heads.value % q8BlockSize !== 0) return {};
  return { cache_type_k: 'q8_0', cache_type_v: 'q8_0', flash_attn: true };
}

/**
 * The KV cache type llama.cpp reports in its load log (`llama_kv_cache: size = ..., K (q8_0): ...,
 * V (q8_0): ...`), as `q8_0`, or `k/v` when keys and values differ. Undefined when no line says.
 */
export function kvCacheFromLog(log: readonly string[]): string | undefined {
  for (const line of log) {
    const match = /K \((\w+)\):.*V \((\w+)\):/.exec(line);
    if (match) return match[1] === match[2] ? match[1] : `${match[1]}/${match[2]}`;
  }
  return undefined;
}
