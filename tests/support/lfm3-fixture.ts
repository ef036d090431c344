import type { GgufModel, GgufTensor, GgufValue } from './gguf-writer.js';
import {
  buildLfm2Vocabulary,
  lfm2ChatTemplate,
  lfm2TokenizerMetadata,
  type Lfm2Vocabulary,
} from './lfm2-fixtures.js';

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
  return lfm3TextModel(name, buildLfm2Vocabulary(lfm3TinyConfig.vocab, 'words'));
}

/**
 * The tiny `lfm3` text model for {@link lfm3VlProjector}: as {@link lfm3Model}, with the two tokens
 * llama.cpp's mtmd wraps an LFM3-VL image in (`<|vision_start|>`, `<|vision_end|>`, not LFM2-VL's
 * `<|image_start|>`) as control tokens at the end of the vocabulary, so each is one token.
 */
export function lfm3VlModel(name = 'tiny-lfm3-vl'): GgufModel {
  const markers = ['<|vision_start|>', '<|vision_end|>'];
  const vocabulary = buildLfm2Vocabulary(lfm3TinyConfig.vocab - markers.length, 'words');
  vocabulary.tokens.push(...markers);
  vocabulary.tokenTypes.push(...markers.map(() => controlTokenType));
  return lfm3TextModel(name, vocabulary);
}

/** GGUF's token type of a control token (llama.cpp's LLAMA_TOKEN_TYPE_CONTROL). */
const controlTokenType = 3;

function lfm3TextModel(name: string, vocabulary: Lfm2Vocabulary): GgufModel {
  const c = lfm3TinyConfig;
  const e = c.embedding;
  const d = e / c.heads;
  const isAttention = (i: number) => (c.attentionLayers as readonly number[]).includes(i);
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

/**
 * The tiny LFM3-VL projector's vision encoder: one attention block and one convolution block, 8-pixel
 * patches merged 2 by 2, so a 64x48 picture becomes 8x6 patches and 12 image tokens.
 */
export const lfm3VlProjectorConfig = {
  imageSize: 64,
  patchSize: 8,
  embedding: 32,
  feedForward: 64,
  heads: 2,
  /** Block 0 attends, block 1 convolves (`conv2d_in_proj`, a 3x3 depthwise `conv2d_spatial`). */
  blocks: ['attention', 'conv'],
  spatialMerge: 2,
  /** The projector MLP's hidden width. */
  projectorHidden: 128,
  /** The preprocessor resizes every picture into this pixel range, in steps of 16 pixels. */
  minPixels: 16 * 16,
  maxPixels: 128 * 128,
} as const;

/**
 * The LFM3-VL vision projector (`clip` architecture, projector `lfm3vl`) for {@link lfm3Model}, per
 * llama.cpp b12211's loader and `mtmd_graph_lfm3vl::build` (docs/research/wllama-3.13-and-lfm3.md):
 * a bias-free patchifier, an RMS embedding norm, blocks that are either RoPE'd attention or a gated
 * depthwise convolution, then a 2x2 pixel unshuffle into `mm.0` and `mm.2`. No position embedding.
 */
export function lfm3VlProjector(name = 'mmproj-tiny-lfm3-vl'): GgufModel {
  const c = lfm3VlProjectorConfig;
  const textE = lfm3TinyConfig.embedding;
  const ev = c.embedding;
  const d = ev / c.heads;
  const bool = (value: boolean): GgufValue => ({ type: 'bool', value });
  const metadata: Record<string, GgufValue> = {
    'general.architecture': str('clip'),
    'general.type': str('mmproj'),
    'general.name': str(name),
    'general.file_type': u32(1),
    'clip.has_vision_encoder': bool(true),
    'clip.projector_type': str('lfm3vl'),
    'clip.use_gelu': bool(true),
    'clip.vision.projection_dim': u32(textE),
    'clip.vision.image_size': u32(c.imageSize),
    'clip.vision.patch_size': u32(c.patchSize),
    'clip.vision.embedding_length': u32(ev),
    'clip.vision.feed_forward_length': u32(c.feedForward),
    'clip.vision.block_count': u32(c.blocks.length),
    'clip.vision.attention.head_count': u32(c.heads),
    'clip.vision.attention.head_count_kv': u32(c.heads),
    'clip.vision.attention.layer_norm_epsilon': f32(1e-6),
    'clip.vision.image_mean': { type: 'array', itemType: 'float32', value: [0.5, 0.5, 0.5] },
    'clip.vision.image_std': { type: 'array', itemType: 'float32', value: [0.5, 0.5, 0.5] },
    'clip.vision.spatial_merge_size': u32(c.spatialMerge),
    'clip.vision.image_resize_algo': str('bilinear'),
    'clip.vision.image_min_pixels': u32(c.minPixels),
    'clip.vision.image_max_pixels': u32(c.maxPixels),
  };
  const weights = { kind: 'normal', std: 0.02 } as const;
  const tensor = (tensorName: string, dims: number[], type: 'F16' | 'F32' = 'F16'): GgufTensor => ({
    name: tensorName,
    dims,
    type,
    data: weights,
  });
  const constant = (tensorName: string, n: number, value: number): GgufTensor => ({
    name: tensorName,
    dims: [n],
    type: 'F32',
    data: { kind: 'constant', value },
  });
  const tensors: GgufTensor[] = [
    tensor('v.patch_embd.weight', [c.patchSize, c.patchSize, 3, ev]),
    constant('v.embedding_norm.weight', ev, 1),
  ];
  c.blocks.forEach((kind, i) => {
    const blk = `v.blk.${i}`;
    tensors.push(constant(`${blk}.ln1.weight`, ev, 1), constant(`${blk}.ln2.weight`, ev, 1));
    if (kind === 'attention') {
      tensors.push(
        tensor(`${blk}.attn_q.weight`, [ev, c.heads * d]),
        tensor(`${blk}.attn_k.weight`, [ev, c.heads * d]),
        tensor(`${blk}.attn_v.weight`, [ev, c.heads * d]),
        tensor(`${blk}.attn_out.weight`, [c.heads * d, ev]),
        constant(`${blk}.attn_q_norm.weight`, d, 1),
        constant(`${blk}.attn_k_norm.weight`, d, 1),
      );
    } else {
      tensors.push(
        tensor(`${blk}.conv2d_in_proj.weight`, [ev, 3 * ev]),
        tensor(`${blk}.conv2d_spatial.weight`, [3, 3, 1, ev], 'F32'),
        tensor(`${blk}.conv2d_out_proj.weight`, [ev, ev]),
      );
    }
    tensors.push(
      tensor(`${blk}.ffn_up.weight`, [ev, c.feedForward]),
      tensor(`${blk}.ffn_down.weight`, [c.feedForward, ev]),
    );
  });
  const merged = ev * c.spatialMerge * c.spatialMerge;
  tensors.push(
    constant('mm.input_norm.weight', ev, 1),
    constant('mm.input_norm.bias', ev, 0),
    tensor('mm.0.weight', [merged, c.projectorHidden]),
    constant('mm.0.bias', c.projectorHidden, 0),
    tensor('mm.2.weight', [c.projectorHidden, textE]),
    constant('mm.2.bias', textE, 0),
  );
  return { metadata, tensors };
}
