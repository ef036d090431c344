import type { GgufModel, GgufTensor, GgufValue } from './gguf-writer.js';
import { buildLfm2Vocabulary, lfm2ChatTemplate, lfm2TokenizerMetadata } from './lfm2-fixtures.js';

/** The tiny `lfm3` model's shape: LFM2's tiny one, with attention heads gated and windowed. */
export const lfm3TinyConfig = {
  embedding: 64,
  blocks: 4,
  feedForward: 128,
  heads: 4,
  kvHeads: 2,
  vocab: 512,
  /** Layer 1 attends in a sliding window, layer 3 over the whole context (with rope_freqs). */
  attentionLayers: [1, 3],
  slidingLayers: [1],
  slidingWindow: 32,
  contextLength: 4096,
} as const;

const u32 = (value: number): GgufValue => ({ type: 'uint32', value });
const f32 = (value: number): GgufValue => ({ type: 'float32', value });
const str = (value: string): GgufValue => ({ type: 'string', value });

/**
 * A tiny `lfm3` text model with random weights, per llama.cpp b12211's definition of the
 * architecture (docs/research/wllama-3.13-and-lfm3.md): LFM2's short convolutions and attention,
 * a per-layer sliding-window pattern with its own RoPE base, `rope_freqs` for the full-attention
 * layers, a sigmoid gate per attention head (`attn_gate`), post-norms after attention and the
 * feed-forward, and `output_norm` as the final norm. Words fill the vocabulary, so answers print.
 */
export function lfm3Model(name = 'tiny-lfm3'): GgufModel {
  const c = lfm3TinyConfig;
  const e = c.embedding;
  const d = e / c.heads;
  const isAttention = (i: number) => (c.attentionLayers as readonly number[]).includes(i);
  const vocabulary = buildLfm2Vocabulary(c.vocab, 'words');
  const metadata: Record<string, GgufValue> = {
    'general.architecture': str('lfm3'),
    'general.name': str(name),
    'general.file_type': u32(1),
    'lfm3.context_length': u32(c.contextLength),
    'lfm3.embedding_length': u32(e),
    'lfm3.block_count': u32(c.blocks),
    'lfm3.feed_forward_length': u32(c.feedForward),
    'lfm3.attention.head_count': u32(c.heads),
    'lfm3.attention.head_count_kv': {
      type: 'array',
      itemType: 'int32',
      value: Array.from({ length: c.blocks }, (_, i) => (isAttention(i) ? c.kvHeads : 0)),
    },
    'lfm3.attention.sliding_window_pattern': {
      type: 'array',
      itemType: 'bool',
      value: Array.from({ length: c.blocks }, (_, i) =>
        (c.slidingLayers as readonly number[]).includes(i),
      ),
    },
    'lfm3.attention.sliding_window': u32(c.slidingWindow),
    'lfm3.rope.freq_base': f32(1000000),
    'lfm3.rope.freq_base_swa': f32(10000),
    'lfm3.attention.layer_norm_rms_epsilon': f32(1e-5),
    'lfm3.vocab_size': u32(c.vocab),
    'lfm3.shortconv.l_cache': u32(3),
    ...lfm2TokenizerMetadata(vocabulary, lfm2ChatTemplate),
  };
  const weights = { kind: 'normal', std: 0.02 } as const;
  const ones = { kind: 'constant', value: 1 } as const;
  const f16 = (tensorName: string, dims: number[]): GgufTensor => ({
    name: tensorName,
    dims,
    type: 'F16',
    data: weights,
  });
  const norm = (tensorName: string, n: number): GgufTensor => ({
    name: tensorName,
    dims: [n],
    type: 'F32',
    data: ones,
  });
  const tensors: GgufTensor[] = [
    f16('token_embd.weight', [e, c.vocab]),
    norm('output_norm.weight', e),
    norm('rope_freqs.weight', d / 2),
  ];
  for (let i = 0; i < c.blocks; i++) {
    const blk = `blk.${i}`;
    tensors.push(
      norm(`${blk}.attn_norm.weight`, e),
      norm(`${blk}.ffn_norm.weight`, e),
      norm(`${blk}.post_attention_norm.weight`, e),
      norm(`${blk}.post_ffw_norm.weight`, e),
      f16(`${blk}.ffn_gate.weight`, [e, c.feedForward]),
      f16(`${blk}.ffn_up.weight`, [e, c.feedForward]),
      f16(`${blk}.ffn_down.weight`, [c.feedForward, e]),
    );
    if (isAttention(i)) {
      tensors.push(
        norm(`${blk}.attn_q_norm.weight`, d),
        norm(`${blk}.attn_k_norm.weight`, d),
        f16(`${blk}.attn_q.weight`, [e, c.heads * d]),
        f16(`${blk}.attn_k.weight`, [e, c.kvHeads * d]),
        f16(`${blk}.attn_v.weight`, [e, c.kvHeads * d]),
        f16(`${blk}.attn_output.weight`, [c.heads * d, e]),
        { name: `${blk}.attn_gate.weight`, dims: [e, c.heads], type: 'F32', data: weights },
      );
    } else {
      tensors.push(
        { name: `${blk}.shortconv.conv.weight`, dims: [3, e], type: 'F32', data: weights },
        f16(`${blk}.shortconv.in_proj.weight`, [e, 3 * e]),
        f16(`${blk}.shortconv.out_proj.weight`, [e, e]),
      );
    }
  }
  return { metadata, tensors };
}
