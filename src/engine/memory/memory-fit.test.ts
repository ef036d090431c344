import { describe, expect, it } from 'vitest';
import type { GgufMetadataValue } from '../../store/index.js';
import {
  assertCpuFit,
  computeBytes,
  kvCacheBytes,
  loadFailureCause,
  memoryNeed,
  modelFit,
} from './memory-fit.js';

const gb = 1e9;

/** LFM2-2.6B's layout: 30 blocks, 8 of them attention with 8 KV heads of 64. */
function lfm2Metadata(blocks = 30, attention = [2, 5, 8, 10, 12, 14, 16, 18]) {
  return new Map<string, GgufMetadataValue>([
    ['general.architecture', 'lfm2'],
    ['lfm2.block_count', blocks],
    ['lfm2.embedding_length', 2048],
    ['lfm2.feed_forward_length', 10752],
    ['lfm2.attention.head_count', 32],
    [
      'lfm2.attention.head_count_kv',
      Array.from({ length: blocks }, (_, i) => (attention.includes(i) ? 8 : 0)),
    ],
    ['tokenizer.ggml.tokens', Array.from({ length: 65536 }, (_, i) => `t${i}`)],
  ]);
}

describe('kvCacheBytes', () => {
  it('counts keys and values of attention layers only', () => {
    // 8 layers x 8 heads x (64 + 64) values per token, 4,096 tokens, F16.
    expect(kvCacheBytes(lfm2Metadata(), 4096, 2)).toBe(8 * 8 * 128 * 4096 * 2);
  });

  it('takes a scalar KV head count for every layer, and is undefined without a layout', () => {
    const dense = new Map<string, GgufMetadataValue>([
      ['general.architecture', 'llama'],
      ['llama.block_count', 2],
      ['llama.embedding_length', 256],
      ['llama.attention.head_count', 4],
      ['llama.attention.head_count_kv', 2],
    ]);
    expect(kvCacheBytes(dense, 100, 2)).toBe(2 * 2 * 128 * 100 * 2);
    expect(kvCacheBytes(new Map(), 100, 2)).toBeUndefined();
  });
});

describe('modelFit', () => {
  it('says a file over 4 GiB cannot be read by the CPU engine without memory64, naming both sizes', () => {
    const fit = modelFit(memoryNeed({ fileBytes: [4.73 * gb] }), { memory64: false });
    expect(fit.cpu.fits).toBe('no');
    expect(fit.cpu.text).toBe(
      "CPU: does not fit: a file of 4.7 GB; this browser's CPU engine (WebAssembly with 32-bit memory) can address 4 GiB and read files up to 4 GiB. This browser has no 64-bit WebAssembly memory with JSPI (Chromium 137 or later has), which larger models need.",
    );
    expect(fit.gpu.fits).toBe('unknown');
    expect(fit.gpu.text).toContain('4.7 GB of GPU memory');
  });

  it('puts what passes 4 GiB on the memory64 build where the browser has one', () => {
    const fit = modelFit(memoryNeed({ fileBytes: [4.73 * gb] }), { memory64: true });
    expect(fit.cpu).toMatchObject({ fits: 'yes', build: 'memory64' });
    expect(fit.cpu.text).toMatch(
      /^CPU: fits: needs 5\.\d GB \(4\.7 GB of weights and about .* of working memory\)\. Past 4 GiB it runs on wllama's memory64 build, slower than lmtab's\.$/,
    );
    expect(modelFit(memoryNeed({ fileBytes: [0.4 * gb] })).cpu.build).toBe('wasm32');
    // Past 16 GiB neither build holds it.
    const huge = modelFit(memoryNeed({ fileBytes: [17 * gb] }), { memory64: true });
    expect(huge.cpu.fits).toBe('no');
    expect(huge.cpu.text).toContain("this browser's CPU engines can address 16 GiB at most.");
  });

  it('fits the 2.6B Q8_0 file on the CPU at the default context', () => {
    const need = memoryNeed({
      fileBytes: [2.73 * gb],
      metadata: lfm2Metadata(),
      contextLength: 4096,
    });
    expect(need.kvCacheBytes).toBe(Math.ceil(8 * 8 * 128 * 4096 * (34 / 32)));
    const fit = modelFit(need, { memoryBytes: 8 * gb });
    expect(fit.cpu.fits).toBe('yes');
    expect(fit.cpu.text).toMatch(
      /^CPU: fits: needs 3\.\d GB \(2\.7 GB of weights, 35\.7 MB of context cache at 4,096 tokens and about .* of working memory\)\.$/,
    );
  });

  it('says the context is what does not fit when the weights alone would', () => {
    const need = memoryNeed({
      fileBytes: [2.73 * gb],
      metadata: lfm2Metadata(),
      contextLength: 128_000,
      kvBytesPerValue: 2,
    });
    const fit = modelFit(need, { memory64: false });
    expect(fit.cpu.fits).toBe('no');
    expect(fit.cpu.text).toContain('can address 4 GiB. A shorter context (num_ctx) may fit.');
  });

  it('is not sure where the device reports less memory than needed (browsers round it down)', () => {
    const fit = modelFit(memoryNeed({ fileBytes: [1.5 * gb] }), {
      memoryBytes: 1 * gb,
      gpu: false,
    });
    expect(fit.cpu.fits).toBe('unknown');
    expect(fit.cpu.text).toContain('this device reports about 1.0 GB of memory');
    expect(fit.gpu).toEqual({
      fits: 'no',
      text: 'GPU: no WebGPU adapter llama.cpp can use in this browser.',
    });
  });

  it('sizes working memory from the widths and the vocabulary', () => {
    const bytes = computeBytes(lfm2Metadata());
    expect(bytes).toBe(160 * 2 ** 20 + 512 * (8 * 2048 + 2 * 10752 + 65536) * 4);
  });
});

describe('assertCpuFit', () => {
  it('throws model_too_large (507) with the sizes', () => {
    const noMemory64 = { memory64: false };
    expect(() =>
      assertCpuFit('lfm2-8b-a1b', memoryNeed({ fileBytes: [4.73 * gb] }), noMemory64),
    ).toThrow(
      expect.objectContaining({
        code: 'model_too_large',
        status: 507,
        message: expect.stringMatching(
          /^lfm2-8b-a1b cannot be loaded on the CPU: a file of 4\.7 GB;/,
        ),
      }),
    );
    expect(assertCpuFit('small', memoryNeed({ fileBytes: [0.4 * gb] }))).toBe('wasm32');
    expect(assertCpuFit('big', memoryNeed({ fileBytes: [4.73 * gb] }), { memory64: true })).toBe(
      'memory64',
    );
  });
});

describe('loadFailureCause', () => {
  it('names an allocation the engine could not make', () => {
    const log = [
      'ggml_aligned_malloc: insufficient memory (attempted to allocate 2604.12 MB)',
      'alloc_tensor_range: failed to allocate CPU buffer of size 2730614784',
      'llama_model_load: error loading model: unable to allocate CPU buffer',
    ];
    expect(loadFailureCause(log)).toBe(
      'the engine could not allocate 2.7 GB in its memory, which holds at most 4 GiB for weights, context cache and working memory',
    );
  });

  it('names a file the GGUF reader cannot address, and nothing for other failures', () => {
    expect(
      loadFailureCause([
        "gguf_init_from_reader: tensor 'blk.21.ffn_down_exps.weight' size overflow",
      ]),
    ).toMatch(/larger than this engine's GGUF reader can address \(4 GiB/);
    expect(
      loadFailureCause(['llama_model_load: error loading model: unknown model architecture']),
    ).toBeUndefined();
  });
});
