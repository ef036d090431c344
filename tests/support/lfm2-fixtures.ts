import { mkdir, stat, open } from 'node:fs/promises';
import { join } from 'node:path';
import type { GgufSummary } from '../../src/store/index.js';
import { encodeGguf, ggufChunks, layoutGguf, writeGgufFile } from './gguf-writer.js';
import type { GgmlTensorType, GgufModel, GgufTensor, GgufValue } from './gguf-writer.js';
import {
  bool,
  f16Tensor,
  f32,
  f32Tensor,
  layerNorm,
  ones,
  randomWeights,
  str,
  u32,
  zeros,
} from './gguf-values.js';
import { writeIfChanged } from './write-if-changed.js';

/** Shapes of the `lfm2` text model (public LFM2 configs; `tiny` is for tests). */
export type Lfm2Size = 'tiny' | '350M' | '700M' | '1.2B' | '2.6B';

/** Shapes of the `lfm2moe` mixture-of-experts model (`tiny` is for tests). */
export type Lfm2MoeSize = 'tiny' | '8B-A1B';

/** Hyperparameters of one `lfm2` size. */
export interface Lfm2Config {
  /** Embedding length E. */
  embedding: number;
  /** Block count L. */
  blocks: number;
  /** Dense feed-forward length F. */
  feedForward: number;
  /** Attention head count H. */
  heads: number;
  /** KV head count of the attention layers. */
  kvHeads: number;
  /** Vocabulary size V. */
  vocab: number;
  /** Indices of the attention layers; every other layer is a short convolution. */
  attentionLayers: readonly number[];
  /** Training context length (tokens). */
  contextLength: number;
}

const benchAttentionLayers = [2, 5, 8, 10, 12, 14];

/** The sizes of GGUF-FIXTURES.md. */
export const lfm2Configs: Readonly<Record<Lfm2Size, Lfm2Config>> = {
  tiny: {
    embedding: 64,
    blocks: 4,
    feedForward: 128,
    heads: 4,
    kvHeads: 2,
    vocab: 512,
    attentionLayers: [1, 3],
    contextLength: 4096,
  },
  '350M': {
    embedding: 1024,
    blocks: 16,
    feedForward: 4608,
    heads: 16,
    kvHeads: 8,
    vocab: 65536,
    attentionLayers: benchAttentionLayers,
    contextLength: 128000,
  },
  '700M': {
    embedding: 1536,
    blocks: 16,
    feedForward: 6912,
    heads: 24,
    kvHeads: 8,
    vocab: 65536,
    attentionLayers: benchAttentionLayers,
    contextLength: 128000,
  },
  '1.2B': {
    embedding: 2048,
    blocks: 16,
    feedForward: 8192,
    heads: 32,
    kvHeads: 8,
    vocab: 65536,
    attentionLayers: benchAttentionLayers,
    contextLength: 128000,
  },
  // LFM2-2.6B: 2.57e9 parameters, 2.73 GB in Q8_0 (the published file's size).
  '2.6B': {
    embedding: 2048,
    blocks: 30,
    feedForward: 10752,
    heads: 32,
    kvHeads: 8,
    vocab: 65536,
    attentionLayers: [2, 6, 10, 14, 18, 21, 24, 27],
    contextLength: 128000,
  },
};

/** Mixture-of-experts settings of an `lfm2moe` shape. */
export interface Lfm2MoeConfig {
  /** The dense layout around the experts (embedding, blocks, attention layers, vocabulary). */
  base: Lfm2Config;
  expertCount: number;
  expertUsedCount: number;
  /** Feed-forward length of one expert. */
  expertFeedForward: number;
  /** Blocks before the first expert block, with a dense feed-forward of `base.feedForward`. */
  leadingDenseBlocks: number;
  /** llama.cpp's LLAMA_EXPERT_GATING_FUNC_TYPE (2: sigmoid). */
  gatingFunc: number;
}

/** Mixture-of-experts settings of the tiny `lfm2moe` model. */
export const lfm2MoeConfig = {
  expertCount: 4,
  expertUsedCount: 2,
  expertFeedForward: 64,
  leadingDenseBlocks: 1,
  /** llama.cpp's LLAMA_EXPERT_GATING_FUNC_TYPE_SIGMOID. */
  gatingFunc: 2,
} as const;

/** The `lfm2moe` shapes: the tiny test model and LFM2-8B-A1B (8.3e9 parameters, 1.5e9 active). */
export const lfm2MoeConfigs: Readonly<Record<Lfm2MoeSize, Lfm2MoeConfig>> = {
  tiny: { base: lfm2Configs.tiny, ...lfm2MoeConfig },
  '8B-A1B': {
    base: {
      embedding: 2048,
      blocks: 24,
      feedForward: 7168,
      heads: 32,
      kvHeads: 8,
      vocab: 65536,
      attentionLayers: [2, 6, 10, 14, 18, 21],
      contextLength: 128000,
    },
    expertCount: 32,
    expertUsedCount: 4,
    expertFeedForward: 1792,
    leadingDenseBlocks: 2,
    gatingFunc: 2,
  },
};

/** Vision encoder settings of the tiny LFM2-VL projector. */
export const lfm2VlProjectorConfig = {
  imageSize: 256,
  patchSize: 16,
  embedding: 32,
  feedForward: 64,
  blocks: 2,
  heads: 2,
  scaleFactor: 2,
} as const;

/** Ids of the control tokens tests and engines rely on. */
export const lfm2TokenIds = {
  pad: 0,
  bos: 1,
  endOfText: 2,
  imStart: 6,
  imEnd: 7,
  image: 10,
} as const;

/**
 * The fixtures' chat template, written by the project in LFM2's tool format: ChatML with BOS; a
 * system turn listing the tools as JSON between `<|tool_list_start|>[` and `]<|tool_list_end|>`;
 * an assistant's calls as `<|tool_call_start|>[name(arg=value, ...)]<|tool_call_end|>` (unlike the
 * published LFM2.5 template, which drops `tool_calls` from the history); tool answers between
 * `<|tool_response_start|>` and `<|tool_response_end|>`; image parts as `<image>`. With `thinking`,
 * assistant turns carry `<think>reasoning</think>`, and the generation prompt opens `<think>` unless
 * `enable_thinking` is false, so even random weights think.
 * llama.cpp picks its LFM2 parser from the tool-list tokens.
 */
export function lfm2Template(thinking = false): string {
  const content =
    "{%- if message['content'] is string -%}{{- message['content'] -}}" +
    "{%- elif message['content'] is not none -%}{%- for item in message['content'] -%}" +
    "{%- if item['type'] == 'image' -%}{{- '<image>' -}}" +
    "{%- elif item['type'] == 'text' -%}{{- item['text'] -}}{%- endif -%}{%- endfor -%}{%- endif -%}";
  const calls =
    "{%- if message['tool_calls'] -%}{{- '<|tool_call_start|>[' -}}" +
    "{%- for call in message['tool_calls'] -%}" +
    "{%- set fn = call['function'] if call['function'] is defined else call -%}" +
    "{{- fn['name'] + '(' -}}" +
    "{%- if fn['arguments'] is mapping -%}{%- for key, value in fn['arguments'].items() -%}" +
    "{{- key + '=' + (value | tojson) -}}{%- if not loop.last -%}{{- ', ' -}}{%- endif -%}" +
    "{%- endfor -%}{%- else -%}{{- fn['arguments'] -}}{%- endif -%}" +
    "{{- ')' -}}{%- if not loop.last -%}{{- ', ' -}}{%- endif -%}{%- endfor -%}" +
    "{{- ']<|tool_call_end|>' -}}{%- endif -%}";
  const reasoning = thinking
    ? "{%- if message['role'] == 'assistant' and message['thinking'] is defined and message['thinking'] -%}" +
      "{{- '<think>' + message['thinking'] + '</think>' -}}{%- endif -%}"
    : '';
  const generation = thinking
    ? "{{- '<|im_start|>assistant\n' -}}" +
      "{%- if enable_thinking is not defined or enable_thinking -%}{{- '<think>' -}}{%- endif -%}"
    : "{{- '<|im_start|>assistant\n' -}}";
  return (
    '{{- bos_token -}}' +
    '{%- set ns = namespace(system=none) -%}' +
    "{%- if messages and messages[0]['role'] == 'system' -%}" +
    "{%- set ns.system = messages[0]['content'] -%}{%- set rest = messages[1:] -%}" +
    '{%- else -%}{%- set rest = messages -%}{%- endif -%}' +
    '{%- if tools -%}' +
    "{%- set listed = 'List of tools: <|tool_list_start|>[' -%}" +
    '{%- for tool in tools -%}' +
    "{%- set listed = listed + (tool | tojson) + ( ', ' if not loop.last else '' ) -%}" +
    '{%- endfor -%}' +
    "{%- set ns.system = (ns.system + '\n' if ns.system else '') + listed + ']<|tool_list_end|>' -%}" +
    '{%- endif -%}' +
    "{%- if ns.system is not none -%}{{- '<|im_start|>system\n' + ns.system + '<|im_end|>\n' -}}{%- endif -%}" +
    '{%- for message in rest -%}' +
    "{{- '<|im_start|>' + message['role'] + '\n' -}}" +
    reasoning +
    "{%- if message['role'] == 'tool' -%}{{- '<|tool_response_start|>' -}}{%- endif -%}" +
    content +
    "{%- if message['role'] == 'tool' -%}{{- '<|tool_response_end|>' -}}{%- endif -%}" +
    calls +
    "{{- '<|im_end|>\n' -}}" +
    '{%- endfor -%}' +
    '{%- if add_generation_prompt -%}' +
    generation +
    '{%- endif -%}'
  );
}

/** The chat template of the tiny fixtures (see {@link lfm2Template}). */
export const lfm2ChatTemplate = lfm2Template();

/** The chat template of the thinking fixture. */
export const lfm2ThinkingChatTemplate = lfm2Template(true);

/** GGUF token types (llama.cpp's llama_token_type). */
const tokenType = { normal: 1, control: 3, unused: 5 } as const;

/** Letters whose pairs become merges: the most frequent in English text. */
const mergeLetters = 'etaoinshrdlu';

/** Letters of the `words` fillers: none is in {@link mergeLetters}, so no letter-pair merge cuts a word. */
const wordLetters = 'bcfgjkmpqvwxyz';

/**
 * What fills the vocabulary after the fixed tokens: `unused` tokens (type UNUSED, no text), or
 * `words`: space-led words (`Ġb`, `Ġbc`, ...) that print text and that the tokenizer rebuilds.
 */
export type Lfm2Fillers = 'unused' | 'words';

/** The byte-level BPE vocabulary of the fixtures. */
export interface Lfm2Vocabulary {
  /** `tokenizer.ggml.tokens`, by id. */
  tokens: string[];
  /** `tokenizer.ggml.token_type`, by id (1 normal, 3 control, 5 unused). */
  tokenTypes: number[];
  /** `tokenizer.ggml.merges`, by rank (`a b`). */
  merges: string[];
}

/**
 * Builds the fixture vocabulary: control tokens, 256 byte tokens, letter-pair merges, fillers.
 * Random weights sample fillers almost always: `unused` ones print nothing, so benchmarks use
 * `words`, which stream one piece of text per token and re-tokenize to the same ids (a chat
 * history sent back matches the prompt cache, as with a real vocabulary).
 */
export function buildLfm2Vocabulary(size: number, fillers: Lfm2Fillers = 'unused'): Lfm2Vocabulary {
  const control = [
    '<|pad|>',
    '<|startoftext|>',
    '<|endoftext|>',
    '<|fim_pre|>',
    '<|fim_mid|>',
    '<|fim_suf|>',
    '<|im_start|>',
    '<|im_end|>',
    '<|tool_list_start|>',
    '<|tool_list_end|>',
    '<image>',
    '<|image_start|>',
    '<|image_end|>',
    '<|img_thumbnail|>',
  ];
  for (let row = 1; row <= 6; row++) {
    for (let col = 1; col <= 6; col++) control.push(`<|img_row_${row}_col_${col}|>`);
  }
  control.push(
    '<|tool_call_start|>',
    '<|tool_call_end|>',
    '<|tool_response_start|>',
    '<|tool_response_end|>',
    '<think>',
    '</think>',
  );
  const byteChars = gpt2ByteToUnicode();
  const merges: string[] = [];
  for (const a of mergeLetters) for (const b of mergeLetters) merges.push(`${a} ${b}`);
  const tokens = [...control, ...byteChars, ...merges.map((m) => m.replace(' ', ''))];
  const tokenTypes: number[] = [
    ...control.map(() => tokenType.control),
    ...byteChars.map(() => tokenType.normal),
    ...merges.map(() => tokenType.normal),
  ];
  if (tokens.length > size) {
    throw new RangeError(`vocabulary size ${size} is below the ${tokens.length} fixed tokens`);
  }
  if (fillers === 'words') {
    // Breadth first, so every word's prefix is a token and one merge ("Ġbc d") builds each word.
    const space = byteChars[0x20];
    const queue = [space];
    while (tokens.length < size) {
      const prefix = queue.shift()!;
      for (const letter of wordLetters) {
        if (tokens.length >= size) break;
        tokens.push(prefix + letter);
        tokenTypes.push(tokenType.normal);
        merges.push(`${prefix} ${letter}`);
        queue.push(prefix + letter);
      }
    }
  }
  while (tokens.length < size) {
    tokens.push(`<|unused_${tokens.length}|>`);
    tokenTypes.push(tokenType.unused);
  }
  return { tokens, tokenTypes, merges };
}

/** GPT-2's byte-to-unicode table: index = byte value, printable bytes map to themselves. */
export function gpt2ByteToUnicode(): string[] {
  const printable = (b: number): boolean =>
    (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const table: string[] = [];
  let next = 0;
  for (let b = 0; b < 256; b++) table.push(String.fromCodePoint(printable(b) ? b : 256 + next++));
  return table;
}

/** Options of {@link lfm2Model}. */
export interface Lfm2ModelOptions {
  /** Model shape; default `tiny`. */
  size?: Lfm2Size;
  /**
   * Type of the weight matrices: `F16` (file_type 1), `Q8_0` (file_type 7) or `Q4_K_M` (file_type
   * 15: Q4_K matrices, Q6_K token embeddings; needs rows of whole 256-value blocks, so not `tiny`);
   * default `F16`.
   */
  type?: 'F16' | 'Q8_0' | 'Q4_K_M';
  /** `general.name`; default `tiny-lfm2` for tiny, else `lfm2-SIZE-TYPE-random`. */
  name?: string;
  /** What fills the vocabulary; default `unused` (see {@link buildLfm2Vocabulary}). */
  fillers?: Lfm2Fillers;
  /** Carry the thinking chat template (LFM2.5-Thinking style); default false. */
  thinking?: boolean;
  /** Weight matrices' values: `random` (normal, std 0.02) or `zeros` (quick to write); default `random`. */
  weights?: 'random' | 'zeros';
  /** Training context (`lfm2.context_length`); default the size's. */
  contextLength?: number;
}

/** The `lfm2` dense hybrid text model (short convolutions + attention), per GGUF-FIXTURES.md. */
export function lfm2Model(options: Lfm2ModelOptions = {}): GgufModel {
  const size = options.size ?? 'tiny';
  const type = options.type ?? 'F16';
  const name = options.name ?? (size === 'tiny' ? 'tiny-lfm2' : defaultBenchName(size, type));
  const config = {
    ...lfm2Configs[size],
    contextLength: options.contextLength ?? lfm2Configs[size].contextLength,
  };
  return buildTextModel('lfm2', config, type, name, {
    fillers: options.fillers,
    thinking: options.thinking,
    weights: options.weights,
  });
}

/** Options of {@link lfm2MoeModel}. */
export interface Lfm2MoeModelOptions {
  /** Model shape; default `tiny`. */
  size?: Lfm2MoeSize;
  /** Weight mix; default `F16` (the tiny fixture's experts are F16 in every mix). */
  type?: 'F16' | 'Q8_0' | 'Q4_K_M';
  /** `general.name`; default `tiny-lfm2moe`, else `lfm2moe-SIZE-TYPE-random`. */
  name?: string;
  /** Weight matrices' values; default `random`. */
  weights?: 'random' | 'zeros';
  /** What fills the vocabulary; default `unused`. */
  fillers?: Lfm2Fillers;
}

/** An `lfm2moe` mixture-of-experts model: the tiny one per GGUF-FIXTURES.md, or LFM2-8B-A1B's shape. */
export function lfm2MoeModel(options: Lfm2MoeModelOptions = {}): GgufModel {
  const size = options.size ?? 'tiny';
  const type = options.type ?? 'F16';
  const config = lfm2MoeConfigs[size];
  const name =
    options.name ??
    (size === 'tiny'
      ? 'tiny-lfm2moe'
      : `lfm2moe-${size.toLowerCase()}-${type.toLowerCase()}-random`);
  return buildTextModel('lfm2moe', config.base, type, name, {
    moe: config,
    weights: options.weights,
    fillers: options.fillers,
  });
}

function defaultBenchName(size: Lfm2Size, type: string): string {
  return `lfm2-${size.toLowerCase()}-${type.toLowerCase()}-random`;
}

/** llama.cpp's file types of the weight mixes the fixtures write. */
const fileTypes = { F16: 1, Q8_0: 7, Q4_K_M: 15 } as const;

/** The tokenizer's GGUF metadata of an LFM2-family model: its vocabulary and chat template. */
export function lfm2TokenizerMetadata(
  vocabulary: Lfm2Vocabulary,
  chatTemplate: string,
): Record<string, GgufValue> {
  return {
    'tokenizer.ggml.model': str('gpt2'),
    'tokenizer.ggml.pre': str('lfm2'),
    'tokenizer.ggml.tokens': { type: 'array', itemType: 'string', value: vocabulary.tokens },
    'tokenizer.ggml.token_type': { type: 'array', itemType: 'int32', value: vocabulary.tokenTypes },
    'tokenizer.ggml.merges': { type: 'array', itemType: 'string', value: vocabulary.merges },
    'tokenizer.ggml.bos_token_id': u32(lfm2TokenIds.bos),
    'tokenizer.ggml.eos_token_id': u32(lfm2TokenIds.imEnd),
    'tokenizer.ggml.padding_token_id': u32(lfm2TokenIds.pad),
    'tokenizer.ggml.add_bos_token': bool(false),
    'tokenizer.chat_template': str(chatTemplate),
  };
}

/** Options of {@link buildTextModel} beyond the shape. */
interface TextModelOptions {
  fillers?: Lfm2Fillers;
  thinking?: boolean;
  weights?: 'random' | 'zeros';
  /** The experts' settings of an `lfm2moe` model; default the tiny one's. */
  moe?: Lfm2MoeConfig;
}

function buildTextModel(
  arch: 'lfm2' | 'lfm2moe',
  config: Lfm2Config,
  type: keyof typeof fileTypes,
  name: string,
  { fillers = 'unused', thinking = false, ...options }: TextModelOptions = {},
): GgufModel {
  const moe = options.moe ?? lfm2MoeConfigs.tiny;
  const weights = options.weights === 'zeros' ? zeros : randomWeights;
  const { embedding: e, blocks, feedForward: f, heads, kvHeads, vocab: v } = config;
  const d = e / heads;
  const isAttention = (i: number): boolean => config.attentionLayers.includes(i);
  const vocabulary = buildLfm2Vocabulary(v, fillers);
  const metadata: Record<string, GgufValue> = {
    'general.architecture': str(arch),
    'general.name': str(name),
    'general.file_type': u32(fileTypes[type]),
    [`${arch}.context_length`]: u32(config.contextLength),
    [`${arch}.embedding_length`]: u32(e),
    [`${arch}.block_count`]: u32(blocks),
    [`${arch}.feed_forward_length`]: u32(f),
    [`${arch}.attention.head_count`]: u32(heads),
    [`${arch}.attention.head_count_kv`]: {
      type: 'array',
      itemType: 'int32',
      value: Array.from({ length: blocks }, (_, i) => (isAttention(i) ? kvHeads : 0)),
    },
    [`${arch}.rope.freq_base`]: f32(1000000),
    [`${arch}.attention.layer_norm_rms_epsilon`]: f32(1e-5),
    [`${arch}.vocab_size`]: u32(v),
    [`${arch}.shortconv.l_cache`]: u32(3),
  };
  if (arch === 'lfm2moe') {
    Object.assign(metadata, {
      'lfm2moe.expert_count': u32(moe.expertCount),
      'lfm2moe.expert_used_count': u32(moe.expertUsedCount),
      'lfm2moe.expert_feed_forward_length': u32(moe.expertFeedForward),
      'lfm2moe.leading_dense_block_count': u32(moe.leadingDenseBlocks),
      'lfm2moe.expert_gating_func': u32(moe.gatingFunc),
    });
  }
  Object.assign(
    metadata,
    lfm2TokenizerMetadata(vocabulary, thinking ? lfm2ThinkingChatTemplate : lfm2ChatTemplate),
  );

  // Q4_K_M as llama-quantize mixes it for a model whose output shares the token embeddings: Q6_K
  // for those, Q4_K for the other matrices.
  const matrix = (tensorName: string, dims: number[]): GgufTensor => ({
    name: tensorName,
    dims,
    type: type !== 'Q4_K_M' ? type : tensorName === 'token_embd.weight' ? 'Q6_K' : 'Q4_K',
    data: weights,
  });
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
    matrix('token_embd.weight', [e, v]),
    norm('token_embd_norm.weight', e),
  ];
  for (let i = 0; i < blocks; i++) {
    const blk = `blk.${i}`;
    tensors.push(norm(`${blk}.attn_norm.weight`, e), norm(`${blk}.ffn_norm.weight`, e));
    if (arch === 'lfm2moe' && i >= moe.leadingDenseBlocks) {
      const { expertCount: n, expertFeedForward: fe } = moe;
      // The tiny fixture's experts stay F16 (64 values a row: no whole K-quant block).
      const expert = moe === lfm2MoeConfigs.tiny ? f16 : matrix;
      tensors.push(
        { name: `${blk}.ffn_gate_inp.weight`, dims: [e, n], type: 'F32', data: weights },
        expert(`${blk}.ffn_gate_exps.weight`, [e, fe, n]),
        expert(`${blk}.ffn_up_exps.weight`, [e, fe, n]),
        expert(`${blk}.ffn_down_exps.weight`, [fe, e, n]),
        { name: `${blk}.exp_probs_b.bias`, dims: [n], type: 'F32', data: zeros },
      );
    } else {
      tensors.push(
        matrix(`${blk}.ffn_gate.weight`, [e, f]),
        matrix(`${blk}.ffn_up.weight`, [e, f]),
        matrix(`${blk}.ffn_down.weight`, [f, e]),
      );
    }
    if (isAttention(i)) {
      tensors.push(
        norm(`${blk}.attn_q_norm.weight`, d),
        norm(`${blk}.attn_k_norm.weight`, d),
        matrix(`${blk}.attn_q.weight`, [e, e]),
        matrix(`${blk}.attn_k.weight`, [e, kvHeads * d]),
        matrix(`${blk}.attn_v.weight`, [e, kvHeads * d]),
        matrix(`${blk}.attn_output.weight`, [e, e]),
      );
    } else {
      tensors.push(
        { name: `${blk}.shortconv.conv.weight`, dims: [3, e], type: 'F32', data: weights },
        matrix(`${blk}.shortconv.in_proj.weight`, [e, 3 * e]),
        matrix(`${blk}.shortconv.out_proj.weight`, [e, e]),
      );
    }
  }
  return { metadata, tensors };
}

/** Options of {@link lfm2VlProjector}. */
export interface Lfm2VlProjectorOptions {
  /** `general.name`; default `mmproj-tiny-lfm2-vl`. */
  name?: string;
}

/** The LFM2-VL vision projector (`clip` architecture, projector `lfm2`) for the tiny text model. */
export function lfm2VlProjector(options: Lfm2VlProjectorOptions = {}): GgufModel {
  const textE = lfm2Configs.tiny.embedding;
  const {
    imageSize,
    patchSize,
    embedding: ev,
    feedForward: fv,
    blocks,
    heads,
    scaleFactor,
  } = lfm2VlProjectorConfig;
  const patches = (imageSize / patchSize) ** 2;
  const metadata: Record<string, GgufValue> = {
    'general.architecture': str('clip'),
    'general.type': str('mmproj'),
    'general.name': str(options.name ?? 'mmproj-tiny-lfm2-vl'),
    'general.file_type': u32(1),
    'clip.has_vision_encoder': bool(true),
    'clip.projector_type': str('lfm2'),
    'clip.use_gelu': bool(true),
    'clip.vision.projection_dim': u32(textE),
    'clip.vision.image_size': u32(imageSize),
    'clip.vision.patch_size': u32(patchSize),
    'clip.vision.embedding_length': u32(ev),
    'clip.vision.feed_forward_length': u32(fv),
    'clip.vision.block_count': u32(blocks),
    'clip.vision.attention.head_count': u32(heads),
    'clip.vision.attention.layer_norm_epsilon': f32(1e-6),
    'clip.vision.image_mean': { type: 'array', itemType: 'float32', value: [0.5, 0.5, 0.5] },
    'clip.vision.image_std': { type: 'array', itemType: 'float32', value: [0.5, 0.5, 0.5] },
    'clip.vision.projector.scale_factor': u32(scaleFactor),
  };
  const f16 = f16Tensor;
  const tensors: GgufTensor[] = [
    f16('v.patch_embd.weight', [patchSize, patchSize, 3, ev]),
    f32Tensor('v.patch_embd.bias', [ev], zeros),
    f32Tensor('v.position_embd.weight', [ev, patches], randomWeights),
  ];
  for (let i = 0; i < blocks; i++) {
    const blk = `v.blk.${i}`;
    for (const projection of ['attn_q', 'attn_k', 'attn_v', 'attn_out']) {
      tensors.push(
        f16(`${blk}.${projection}.weight`, [ev, ev]),
        f32Tensor(`${blk}.${projection}.bias`, [ev], zeros),
      );
    }
    tensors.push(
      ...layerNorm(`${blk}.ln1`, ev),
      ...layerNorm(`${blk}.ln2`, ev),
      f16(`${blk}.ffn_up.weight`, [ev, fv]),
      f32Tensor(`${blk}.ffn_up.bias`, [fv], zeros),
      f16(`${blk}.ffn_down.weight`, [fv, ev]),
      f32Tensor(`${blk}.ffn_down.bias`, [ev], zeros),
    );
  }
  const merged = ev * scaleFactor * scaleFactor;
  tensors.push(
    ...layerNorm('v.post_ln', ev),
    ...layerNorm('mm.input_norm', merged),
    f16('mm.1.weight', [merged, 2 * textE]),
    f32Tensor('mm.1.bias', [2 * textE], zeros),
    f16('mm.2.weight', [2 * textE, textE]),
    f32Tensor('mm.2.bias', [textE], zeros),
  );
  return { metadata, tensors };
}

/** Parameter count of an `lfm2` model, from the shapes (independent of the tensor list). */
export function lfm2ParameterCount(
  config: Lfm2Config,
  options: {
    /** Count `lfm2moe`'s expert layers instead of dense ones; default false. */
    moe?: boolean;
  } = {},
): number {
  const moe = options.moe ?? false;
  const { embedding: e, blocks, feedForward: f, heads, kvHeads, vocab: v } = config;
  const d = e / heads;
  let total = v * e + e;
  for (let i = 0; i < blocks; i++) {
    total += 2 * e;
    if (moe && i >= lfm2MoeConfig.leadingDenseBlocks) {
      const { expertCount: n, expertFeedForward: fe } = lfm2MoeConfig;
      total += e * n + 3 * e * fe * n + n;
    } else total += 3 * e * f;
    if (config.attentionLayers.includes(i)) total += 2 * d + 2 * e * e + 2 * e * kvHeads * d;
    else total += 3 * e + 3 * e * e + e * e;
  }
  return total;
}

/** Parameter count of the tiny LFM2-VL projector, from its shapes. */
export function lfm2VlProjectorParameterCount(): number {
  const { imageSize, patchSize, embedding: ev, feedForward: fv, blocks } = lfm2VlProjectorConfig;
  const e = lfm2Configs.tiny.embedding;
  const perBlock = 4 * (ev * ev + ev) + 4 * ev + (ev * fv + fv) + (fv * ev + ev);
  const merged = 4 * ev;
  return (
    patchSize * patchSize * 3 * ev +
    ev +
    ev * (imageSize / patchSize) ** 2 +
    blocks * perBlock +
    2 * ev +
    2 * merged +
    (merged * 2 * e + 2 * e) +
    (2 * e * e + e)
  );
}

/** Paths of the tiny fixtures written by {@link ensureFixtures}. */
export interface FixturePaths {
  /** `tiny-lfm2.gguf`: the dense `lfm2` text model. */
  lfm2: string;
  /** `tiny-lfm2moe.gguf`: the mixture-of-experts model. */
  lfm2moe: string;
  /** `tiny-lfm2-vl.gguf`: the text model used with the projector (same weights as `lfm2`). */
  lfm2Vl: string;
  /** `mmproj-tiny-lfm2-vl.gguf`: the vision projector. */
  mmproj: string;
  /** `tiny-lfm2-thinking.gguf`: the text model with the thinking chat template. */
  lfm2Thinking: string;
  /**
   * `tiny-lfm2-heads32.gguf`: the text model with 2 attention heads of 32 (the others have 4 of
   * 16), so its KV cache rows are whole Q8_0 blocks and the CPU build caches them in Q8_0.
   */
  lfm2Heads32: string;
  /**
   * `tiny-lfm2-q4_k_m.gguf`: the text model in Q4_K_M (Q4_K matrices, Q6_K token embeddings), wide
   * enough (256) for K-quant rows, so the CPU build's K-quant dot products run; its vocabulary's
   * fillers are words, so every sampled token shows text (and a logprob entry).
   */
  lfm2Q4KM: string;
}

/** The tiny shape with heads of 32 (a Q8_0 block), for {@link FixturePaths.lfm2Heads32}. */
const tinyHeads32: Lfm2Config = { ...lfm2Configs.tiny, heads: 2, kvHeads: 1 };

/** The tiny shape widened to whole K-quant blocks (256), for {@link FixturePaths.lfm2Q4KM}. */
const tinyQ4KM: Lfm2Config = { ...lfm2Configs.tiny, embedding: 256, feedForward: 512 };

const fixtureFiles: Record<keyof FixturePaths, string> = {
  lfm2: 'tiny-lfm2.gguf',
  lfm2moe: 'tiny-lfm2moe.gguf',
  lfm2Vl: 'tiny-lfm2-vl.gguf',
  mmproj: 'mmproj-tiny-lfm2-vl.gguf',
  lfm2Thinking: 'tiny-lfm2-thinking.gguf',
  lfm2Heads32: 'tiny-lfm2-heads32.gguf',
  lfm2Q4KM: 'tiny-lfm2-q4_k_m.gguf',
};

/** The model behind each tiny fixture. */
export function fixtureModel(fixture: keyof FixturePaths): GgufModel {
  if (fixture === 'lfm2') return lfm2Model();
  if (fixture === 'lfm2moe') return lfm2MoeModel();
  if (fixture === 'lfm2Vl') return lfm2Model({ name: 'tiny-lfm2-vl' });
  if (fixture === 'lfm2Thinking') return lfm2Model({ name: 'tiny-lfm2-thinking', thinking: true });
  if (fixture === 'lfm2Heads32')
    return buildTextModel('lfm2', tinyHeads32, 'F16', 'tiny-lfm2-heads32');
  if (fixture === 'lfm2Q4KM')
    return buildTextModel('lfm2', tinyQ4KM, 'Q4_K_M', 'tiny-lfm2-q4_k_m', { fillers: 'words' });
  return lfm2VlProjector();
}

/** What `readGgufSummary` must report for each tiny fixture. */
export const fixtureSummaries: Readonly<Record<keyof FixturePaths, GgufSummary>> = {
  lfm2: textSummary('lfm2', 'tiny-lfm2', lfm2Configs.tiny, 'F16'),
  lfm2moe: {
    ...textSummary('lfm2moe', 'tiny-lfm2moe', lfm2Configs.tiny, 'F16'),
    parameterCount: lfm2ParameterCount(lfm2Configs.tiny, { moe: true }),
    expertCount: lfm2MoeConfig.expertCount,
  },
  lfm2Vl: textSummary('lfm2', 'tiny-lfm2-vl', lfm2Configs.tiny, 'F16'),
  mmproj: {
    architecture: 'clip',
    name: 'mmproj-tiny-lfm2-vl',
    parameterCount: lfm2VlProjectorParameterCount(),
    quantization: 'F16',
    fileKind: 'mmproj',
    projectorType: 'lfm2',
  },
  lfm2Thinking: {
    ...textSummary('lfm2', 'tiny-lfm2-thinking', lfm2Configs.tiny, 'F16'),
    chatTemplate: lfm2ThinkingChatTemplate,
  },
  lfm2Heads32: textSummary('lfm2', 'tiny-lfm2-heads32', tinyHeads32, 'F16'),
  lfm2Q4KM: textSummary('lfm2', 'tiny-lfm2-q4_k_m', tinyQ4KM, 'Q4_K_M'),
};

/** What `readGgufSummary` must report for an `lfm2` model of a size and type. */
export function lfm2Summary(size: Lfm2Size, type: 'F16' | 'Q8_0'): GgufSummary {
  const name = size === 'tiny' ? 'tiny-lfm2' : defaultBenchName(size, type);
  return textSummary('lfm2', name, lfm2Configs[size], type);
}

function textSummary(
  architecture: string,
  name: string,
  config: Lfm2Config,
  type: GgmlTensorType | 'Q4_K_M',
): GgufSummary {
  return {
    architecture,
    name,
    parameterCount: lfm2ParameterCount(config),
    contextLength: config.contextLength,
    embeddingLength: config.embedding,
    blockCount: config.blocks,
    quantization: type,
    chatTemplate: lfm2ChatTemplate,
    fileKind: 'model',
  };
}

/** Writes the tiny fixtures into `dir`, rewriting only files that are missing or differ. */
export async function ensureFixtures(dir: string): Promise<FixturePaths> {
  await mkdir(dir, { recursive: true });
  const paths = {} as FixturePaths;
  for (const key of Object.keys(fixtureFiles) as (keyof FixturePaths)[]) {
    const path = join(dir, fixtureFiles[key]);
    paths[key] = path;
    await writeIfChanged(path, encodeGguf(fixtureModel(key)));
  }
  return paths;
}

/** Options of {@link writeBenchModel}. */
export interface BenchModelOptions {
  /** A public LFM2 shape. */
  size: Exclude<Lfm2Size, 'tiny'>;
  /** Weight matrix type; default `Q8_0`. */
  type?: 'Q8_0' | 'F16';
  /** Rewrite even when the file already has the expected size and first bytes; default false. */
  force?: boolean;
  /** What fills the vocabulary; default `unused` (benchmarks that stream text want `words`). */
  fillers?: Lfm2Fillers;
}

/** A benchmark model on disk. */
export interface BenchModel {
  /** Where the model is. */
  path: string;
  /** File size in bytes. */
  bytes: number;
  /** Whether this call wrote the file (false when an up-to-date one was already there). */
  written: boolean;
  /** What `readGgufSummary` reports for it. */
  summary: GgufSummary;
}

/** Streams a benchmark-size `lfm2` model (0.4 to 1.3 GB in Q8_0) to `path`, unless already there. */
export async function writeBenchModel(
  path: string,
  options: BenchModelOptions,
): Promise<BenchModel> {
  const type = options.type ?? 'Q8_0';
  const model = lfm2Model({ size: options.size, type, fillers: options.fillers });
  const summary = lfm2Summary(options.size, type);
  const { header, totalBytes } = layoutGguf(model);
  const compare = header.length + (1 << 20);
  if (!(options.force ?? false) && (await startsAsExpected(path, model, totalBytes, compare))) {
    return { path, bytes: totalBytes, written: false, summary };
  }
  const bytes = await writeGgufFile(path, model);
  return { path, bytes, written: true, summary };
}

/**
 * Streams any generated model (a real-size shape, e.g. `lfm2MoeModel({size: '8B-A1B'})`) to `path`,
 * unless a file with the same size, header and first data bytes is already there. Returns its size.
 */
export async function writeModelFile(
  path: string,
  model: GgufModel,
): Promise<{ bytes: number; written: boolean }> {
  const { header, totalBytes } = layoutGguf(model);
  if (await startsAsExpected(path, model, totalBytes, header.length + (1 << 20))) {
    return { bytes: totalBytes, written: false };
  }
  return { bytes: await writeGgufFile(path, model), written: true };
}

/** Same size, header and first data bytes: catches shape and generator changes without a full read. */
async function startsAsExpected(
  path: string,
  model: GgufModel,
  size: number,
  compareBytes: number,
): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  if (info?.size !== size) return false;
  const parts: Uint8Array[] = [];
  let length = 0;
  for (const chunk of ggufChunks(model)) {
    parts.push(chunk.slice());
    length += chunk.length;
    if (length >= compareBytes) break;
  }
  const expected = Buffer.concat(parts);
  const file = await open(path, 'r');
  try {
    const current = Buffer.alloc(expected.length);
    await file.read(current, 0, expected.length, 0);
    return current.equals(expected);
  } finally {
    await file.close();
  }
}
