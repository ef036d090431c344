import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { GgufSummary } from '../../src/store/index.js';
import { elementCount, encodeGguf } from './gguf-writer.js';
import type { GgufModel, GgufTensor, GgufValue } from './gguf-writer.js';
import { lfm2Model } from './lfm2-fixtures.js';
import { writeIfChanged } from './write-if-changed.js';

/** Hyperparameters of the tiny `bert` encoder. */
export const tinyBertConfig = {
  /** Embedding length E (the vector dimension). */
  embedding: 64,
  blocks: 2,
  feedForward: 128,
  heads: 4,
  /** Training context length (position embeddings). */
  contextLength: 512,
  /** llama.cpp's `LLAMA_POOLING_TYPE_MEAN`. */
  poolingType: 1,
} as const;

/** A bge-small-shaped encoder (random weights) for benchmarks: the compute of the real model. */
export const smallBertConfig = {
  embedding: 384,
  blocks: 12,
  feedForward: 1536,
  heads: 12,
  contextLength: 512,
  poolingType: 2,
} as const;

/** Hyperparameters of a BERT-shaped encoder. */
export type BertConfig = {
  readonly [K in keyof typeof tinyBertConfig]: number;
};

/** llama.cpp's `LLAMA_POOLING_TYPE_LAST`, written into the decoder fixture. */
export const lastPooling = 3;

/** Token ids of the BERT vocabulary's special tokens. */
export const bertTokenIds = { pad: 0, unk: 1, cls: 2, sep: 3, mask: 4 } as const;

const specialTokens = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
const characters = 'abcdefghijklmnopqrstuvwxyz0123456789.,!?;:\'"()-';
/** Whole words, so a word-start token longer than one letter exists (WordPiece's longest match). */
const words = ['the', 'a', 'of', 'and', 'to', 'in', 'is', 'it', 'sea', 'sun', 'cat', 'dog'];
/** U+2581: llama.cpp's WordPiece vocabularies mark a word start with it (the converter drops `##`). */
const wordStart = '\u2581';

/**
 * The vocabulary of the tiny encoder in llama.cpp's WordPiece (`bert`) shape: special tokens, then
 * every character as a word start (`▁a`) and as a continuation (`a`), then a few whole words.
 */
export function buildBertVocabulary(): { tokens: string[]; tokenTypes: number[] } {
  const tokens = [...specialTokens];
  for (const c of characters) tokens.push(wordStart + c, c);
  for (const word of words) if (!tokens.includes(wordStart + word)) tokens.push(wordStart + word);
  // Control (3) for the special tokens, normal (1) for the rest.
  const tokenTypes = tokens.map((_, i) => (i < specialTokens.length ? 3 : 1));
  return { tokens, tokenTypes };
}

const u32 = (value: number): GgufValue => ({ type: 'uint32', value });
const f32 = (value: number): GgufValue => ({ type: 'float32', value });
const str = (value: string): GgufValue => ({ type: 'string', value });
const bool = (value: boolean): GgufValue => ({ type: 'bool', value });

/** Options of {@link tinyBertModel}. */
export interface TinyBertOptions {
  /** `general.name`; default `tiny-bert`. */
  name?: string;
  /** `bert.pooling_type`; default the config's. Omitted from the file when `null`. */
  poolingType?: number | null;
  /** The shape; default {@link tinyBertConfig}. */
  config?: BertConfig;
  /** Type of the weight matrices; default `F16` (`Q8_0` needs dimensions that are multiples of 32). */
  type?: 'F16' | 'Q8_0';
}

/**
 * A BERT-shaped encoder (llama.cpp architecture `bert`, as bge and all-MiniLM are converted) with
 * random weights: WordPiece vocabulary, absolute position embeddings, post-norm blocks, mean pooling.
 */
export function tinyBertModel(options: TinyBertOptions = {}): GgufModel {
  const config = options.config ?? tinyBertConfig;
  const type = options.type ?? 'F16';
  const { embedding: e, blocks, feedForward: f, heads, contextLength } = config;
  const vocabulary = buildBertVocabulary();
  const v = vocabulary.tokens.length;
  const poolingType = options.poolingType === undefined ? config.poolingType : options.poolingType;
  const metadata: Record<string, GgufValue> = {
    'general.architecture': str('bert'),
    'general.name': str(options.name ?? 'tiny-bert'),
    'general.file_type': u32(type === 'F16' ? 1 : 7),
    'bert.context_length': u32(contextLength),
    'bert.embedding_length': u32(e),
    'bert.feed_forward_length': u32(f),
    'bert.block_count': u32(blocks),
    'bert.attention.head_count': u32(heads),
    'bert.attention.layer_norm_epsilon': f32(1e-12),
    'bert.attention.causal': bool(false),
  };
  if (poolingType !== null) metadata['bert.pooling_type'] = u32(poolingType);
  Object.assign(metadata, {
    'tokenizer.ggml.model': str('bert'),
    'tokenizer.ggml.tokens': { type: 'array', itemType: 'string', value: vocabulary.tokens },
    'tokenizer.ggml.token_type': { type: 'array', itemType: 'int32', value: vocabulary.tokenTypes },
    'tokenizer.ggml.token_type_count': u32(2),
    'tokenizer.ggml.bos_token_id': u32(bertTokenIds.cls),
    'tokenizer.ggml.eos_token_id': u32(bertTokenIds.sep),
    'tokenizer.ggml.seperator_token_id': u32(bertTokenIds.sep),
    'tokenizer.ggml.unknown_token_id': u32(bertTokenIds.unk),
    'tokenizer.ggml.padding_token_id': u32(bertTokenIds.pad),
    'tokenizer.ggml.mask_token_id': u32(bertTokenIds.mask),
    'tokenizer.ggml.cls_token_id': u32(bertTokenIds.cls),
  } satisfies Record<string, GgufValue>);

  const weights = { kind: 'normal', std: 0.05 } as const;
  const matrix = (name: string, dims: number[]): GgufTensor => ({
    name,
    dims,
    type,
    data: weights,
  });
  const vector = (name: string, n: number, value: number): GgufTensor => ({
    name,
    dims: [n],
    type: 'F32',
    data: { kind: 'constant', value },
  });
  const tensors: GgufTensor[] = [
    matrix('token_embd.weight', [e, v]),
    // Added to the activations as a row view, so it must be F32 (ggml adds no F16 to F32).
    { name: 'token_types.weight', dims: [e, 2], type: 'F32', data: weights },
    matrix('position_embd.weight', [e, contextLength]),
    vector('token_embd_norm.weight', e, 1),
    vector('token_embd_norm.bias', e, 0),
  ];
  for (let i = 0; i < blocks; i++) {
    const blk = `blk.${i}`;
    for (const part of ['attn_q', 'attn_k', 'attn_v', 'attn_output']) {
      tensors.push(matrix(`${blk}.${part}.weight`, [e, e]), vector(`${blk}.${part}.bias`, e, 0));
    }
    tensors.push(
      vector(`${blk}.attn_output_norm.weight`, e, 1),
      vector(`${blk}.attn_output_norm.bias`, e, 0),
      matrix(`${blk}.ffn_up.weight`, [e, f]),
      vector(`${blk}.ffn_up.bias`, f, 0),
      matrix(`${blk}.ffn_down.weight`, [f, e]),
      vector(`${blk}.ffn_down.bias`, e, 0),
      vector(`${blk}.layer_output_norm.weight`, e, 1),
      vector(`${blk}.layer_output_norm.bias`, e, 0),
    );
  }
  return { metadata, tensors };
}

/** llama.cpp's `LLAMA_POOLING_TYPE_RANK`. */
export const rankPooling = 4;

/**
 * The tiny encoder as a reranker (as bge-reranker and jina-reranker are converted): pooling `rank`,
 * and a classification head that llama.cpp applies to the first token's vector: `cls` (a dense
 * layer and tanh) and `cls.output` (one score).
 */
export function tinyBertRerankerModel(): GgufModel {
  const model = tinyBertModel({ name: 'tiny-bert-reranker', poolingType: rankPooling });
  const e = tinyBertConfig.embedding;
  return {
    metadata: model.metadata,
    tensors: [
      ...model.tensors,
      { name: 'cls.weight', dims: [e, e], type: 'F16', data: { kind: 'normal', std: 0.2 } },
      { name: 'cls.bias', dims: [e], type: 'F32', data: { kind: 'constant', value: 0 } },
      { name: 'cls.output.weight', dims: [e, 1], type: 'F32', data: { kind: 'normal', std: 0.5 } },
      { name: 'cls.output.bias', dims: [1], type: 'F32', data: { kind: 'constant', value: 0 } },
    ],
  };
}

/** The tiny `lfm2` decoder with `lfm2.pooling_type` = last: an embedding model made from a decoder. */
export function tinyLfm2EmbedModel(): GgufModel {
  const model = lfm2Model({ name: 'tiny-lfm2-embed' });
  return {
    metadata: { ...model.metadata, 'lfm2.pooling_type': u32(lastPooling) },
    tensors: model.tensors,
  };
}

/** Paths of the files written by {@link ensureEmbeddingFixtures}. */
export interface EmbeddingFixturePaths {
  /** `tiny-bert.gguf`: the encoder with mean pooling. */
  bert: string;
  /** `tiny-lfm2-embed.gguf`: the decoder with last-token pooling. */
  lfm2Embed: string;
  /** `tiny-bert-reranker.gguf`: the encoder with rank pooling and a classification head. */
  bertReranker: string;
}

const files: Record<keyof EmbeddingFixturePaths, [string, () => GgufModel]> = {
  bert: ['tiny-bert.gguf', () => tinyBertModel()],
  lfm2Embed: ['tiny-lfm2-embed.gguf', tinyLfm2EmbedModel],
  bertReranker: ['tiny-bert-reranker.gguf', tinyBertRerankerModel],
};

/** What `readGgufSummary` must report for the tiny encoder. */
export function tinyBertSummary(): GgufSummary {
  const model = tinyBertModel();
  return {
    architecture: 'bert',
    name: 'tiny-bert',
    parameterCount: model.tensors.reduce((sum, t) => sum + elementCount(t), 0),
    contextLength: tinyBertConfig.contextLength,
    embeddingLength: tinyBertConfig.embedding,
    blockCount: tinyBertConfig.blocks,
    quantization: 'F16',
    fileKind: 'model',
    poolingType: tinyBertConfig.poolingType,
  };
}

/** Writes the embedding fixtures into `dir`, rewriting only files that are missing or differ. */
export async function ensureEmbeddingFixtures(dir: string): Promise<EmbeddingFixturePaths> {
  await mkdir(dir, { recursive: true });
  const paths = {} as EmbeddingFixturePaths;
  for (const key of Object.keys(files) as (keyof EmbeddingFixturePaths)[]) {
    const [name, build] = files[key];
    const path = join(dir, name);
    paths[key] = path;
    await writeIfChanged(path, encodeGguf(build()));
  }
  return paths;
}
