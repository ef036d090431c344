import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeGguf } from './gguf-writer.js';
import type { GgufModel, GgufTensor, GgufValue } from './gguf-writer.js';
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
import { buildLfm2Vocabulary, lfm2ChatTemplate, lfm2TokenizerMetadata } from './lfm2-fixtures.js';
import { writeIfChanged } from './write-if-changed.js';

/**
 * The tiny speaking model's shape: llama.cpp's Pocket TTS (text architecture `pockettts`, the
 * backbone of a flow language model, with projector `pockettts_gen`: the flow net that turns each
 * hidden state into a latent, and the Mimi decoder that turns latents into 24 kHz audio).
 */
export const speechModelConfig = {
  /** The backbone: a pre-norm transformer with LayerNorm and GELU, no output head. */
  embedding: 64,
  blocks: 2,
  feedForward: 128,
  heads: 2,
  vocab: 512,
  contextLength: 4096,
  /** One latent per 80 ms frame (Pocket TTS's is 32 wide). */
  latent: 8,
  /** The flow net's width and its blocks. */
  flowWidth: 16,
  flowBlocks: 1,
  /** Frequencies of each time embedding (cos and sin of each). */
  timeFrequencies: 8,
  /** The Mimi decoder's transformer width, heads, feed-forward and blocks. */
  mimiWidth: 16,
  mimiHeads: 2,
  mimiFeedForward: 32,
  mimiBlocks: 1,
  /** SEANet's first channel count; each of its three stages halves it. */
  seanetChannels: 32,
} as const;

/** The sample rate a Pocket TTS model speaks at (llama.cpp fixes it for `pockettts_gen`). */
export const speechSampleRate = 24_000;

/**
 * Samples per latent frame: the Mimi decoder's depthwise upsampling (16) times SEANet's strides
 * (6, 5 and 4), both fixed by llama.cpp for `pockettts_gen`.
 */
export const speechFrameSamples = 16 * 6 * 5 * 4;

/** The tiny model's one predefined voice. */
export const speechVoice = 'alba';

/** What the speaking model answers to every chat prompt (then it ends its turn). */
export const speechAnswer = 'Hi';

/** The token that starts the audio after the text (llama.cpp's Pocket TTS pipeline needs it). */
const audioBos = '<|audio_bos|>';

/** GGUF's token type of a control token. */
const controlTokenType = 3;

/**
 * The tiny Pocket TTS backbone (`pockettts`), random weights but for its embedding, which makes
 * every chat answer {@link speechAnswer} (see {@link answeringEmbeddings}). Its vocabulary is the
 * fixtures' byte-level one with words, `<|audio_bos|>` added as a control token at its end.
 */
export function speechModel(name = 'tiny-pocket-tts'): GgufModel {
  const c = speechModelConfig;
  const e = c.embedding;
  const vocabulary = buildLfm2Vocabulary(c.vocab - 1, 'words');
  vocabulary.tokens.push(audioBos);
  vocabulary.tokenTypes.push(controlTokenType);
  const metadata: Record<string, GgufValue> = {
    'general.architecture': str('pockettts'),
    'general.name': str(name),
    'general.file_type': u32(1),
    'pockettts.context_length': u32(c.contextLength),
    'pockettts.embedding_length': u32(e),
    'pockettts.block_count': u32(c.blocks),
    'pockettts.feed_forward_length': u32(c.feedForward),
    'pockettts.attention.head_count': u32(c.heads),
    'pockettts.attention.head_count_kv': u32(c.heads),
    'pockettts.attention.layer_norm_epsilon': f32(1e-5),
    ...lfm2TokenizerMetadata(vocabulary, lfm2ChatTemplate),
  };
  const f16 = f16Tensor;
  const tensors: GgufTensor[] = [
    {
      name: 'token_embd.weight',
      dims: [e, c.vocab],
      type: 'F16',
      data: { kind: 'values', values: answeringEmbeddings(vocabulary.tokens) },
    },
    ...layerNorm('output_norm', e),
  ];
  for (let i = 0; i < c.blocks; i++) {
    const blk = `blk.${i}`;
    tensors.push(
      ...layerNorm(`${blk}.attn_norm`, e),
      f16(`${blk}.attn_q.weight`, [e, e]),
      f16(`${blk}.attn_k.weight`, [e, e]),
      f16(`${blk}.attn_v.weight`, [e, e]),
      f16(`${blk}.attn_output.weight`, [e, e]),
      ...layerNorm(`${blk}.ffn_norm`, e),
      f16(`${blk}.ffn_up.weight`, [e, c.feedForward]),
      f16(`${blk}.ffn_down.weight`, [c.feedForward, e]),
    );
  }
  return { metadata, tensors };
}

/**
 * The backbone's embedding, which llama.cpp also reads as its output head (Pocket TTS has none):
 * random rows, but for a chain that makes every chat answer {@link speechAnswer}: a spoken answer
 * always has words to say (random ones may be newlines and control tokens, which say nothing), and
 * a transcript ends at once (greedy random weights repeat one token up to the cap, 448 tokens a
 * Talk turn, seconds of work before the turn's answer can start).
 *
 * How: the layers' random weights are small, so the final state is about the current token's
 * embedding, layer-normed; each logit is a row's dot product with it. A tied head favours the
 * current token itself, so each link of the chain (the newline that ends the generation prompt,
 * `H`, `i`, `<|im_end|>`) shares a direction with the next and the next is longer: its logit
 * then passes the current token's by 30 or more.
 */
function answeringEmbeddings(tokens: string[]): Float32Array {
  const e = speechModelConfig.embedding;
  const values = new Float32Array(e * tokens.length);
  let seed = 0x5eed;
  for (let i = 0; i < values.length; i++) {
    // A small LCG: the same bytes on every run, spread about ±0.03.
    seed = (seed * 1_103_515_245 + 12_345) >>> 0;
    values[i] = (seed / 2 ** 32 - 0.5) * 0.06;
  }
  // GPT-2's byte-level alphabet writes the newline byte as U+010A.
  const chain = ['\u010a', 'H', 'i', '<|im_end|>'].map((text) => tokens.indexOf(text));
  // Link k lies along components k - 1 and k (the first along 0 only, the last along 2 only).
  const rows = [
    [4, 0, 0],
    [8, 8, 0],
    [0, 24, 24],
    [0, 0, 64],
  ];
  chain.forEach((token, k) => {
    values.fill(0, token * e, (token + 1) * e);
    values.set(rows[k]!, token * e);
  });
  return values;
}

/** Weights of the decoder's convolutions: larger than the default, so the audio is audible. */
const convWeights = { kind: 'normal', std: 0.2 } as const;

/**
 * The tiny speaking model's projector (`clip`, audio generation only, projector `pockettts_gen`),
 * random weights: the flow net (two time embeddings, AdaLN blocks), the end-of-speech head, and
 * the Mimi decoder (a depthwise upsampler, a transformer, SEANet's three transposed-conv stages).
 * The end-of-speech head never fires (weights 0, bias -10 under llama.cpp's threshold of -4), so
 * every answer runs to the pipeline's length budget for its text.
 */
export function speechProjector(name = 'mmproj-tiny-pocket-tts'): GgufModel {
  const c = speechModelConfig;
  const e = c.embedding;
  const l = c.latent;
  const w = c.flowWidth;
  const d = c.mimiWidth;
  const metadata: Record<string, GgufValue> = {
    'general.architecture': str('clip'),
    'general.type': str('mmproj'),
    'general.name': str(name),
    'general.file_type': u32(1),
    // llama.cpp loads no projector without an encoder: Pocket TTS ships its voice encoder beside.
    'clip.has_audio_encoder': bool(true),
    'clip.audio.projector_type': str('pockettts_spkenc'),
    'clip.audio.num_mel_bins': u32(1),
    'clip.audio.embedding_length': u32(d),
    'clip.audio.feed_forward_length': u32(c.mimiFeedForward),
    'clip.audio.block_count': u32(c.mimiBlocks),
    'clip.audio.attention.head_count': u32(c.mimiHeads),
    'clip.audio.attention.layer_norm_epsilon': f32(1e-5),
    'clip.audio.projection_dim': u32(e),
    'clip.has_gen_audio_encoder': bool(true),
    'clip.gen.audio.projector_type': str('pockettts_gen'),
    'clip.gen.audio.embedding_length': u32(d),
    'clip.gen.audio.feed_forward_length': u32(c.mimiFeedForward),
    'clip.gen.audio.block_count': u32(c.mimiBlocks),
    'clip.gen.audio.attention.head_count': u32(c.mimiHeads),
    'clip.gen.audio.attention.layer_norm_epsilon': f32(1e-5),
    'clip.gen.audio.projection_dim': u32(e),
  };
  const f16 = f16Tensor;
  const bias = (name: string, n: number) => f32Tensor(name, [n], zeros);
  const tensors: GgufTensor[] = [
    // The flow net: latent and backbone state in, velocity out.
    f16('a.gen.flow.input_proj.weight', [l, w]),
    bias('a.gen.flow.input_proj.bias', w),
    f16('a.gen.flow.cond_embd.weight', [e, w]),
    bias('a.gen.flow.cond_embd.bias', w),
  ];
  for (let i = 0; i < 2; i++) {
    const t = `a.gen.flow.time.${i}`;
    tensors.push(
      f32Tensor(`${t}.freqs`, [c.timeFrequencies], randomWeights),
      f16(`${t}.up.weight`, [2 * c.timeFrequencies, w]),
      bias(`${t}.up.bias`, w),
      f16(`${t}.down.weight`, [w, w]),
      bias(`${t}.down.bias`, w),
      f32Tensor(`${t}.norm`, [w], ones),
    );
  }
  for (let i = 0; i < c.flowBlocks; i++) {
    const blk = `a.gen.flow.blk.${i}`;
    tensors.push(
      ...layerNorm(`${blk}.norm`, w),
      f16(`${blk}.up.weight`, [w, w]),
      bias(`${blk}.up.bias`, w),
      f16(`${blk}.down.weight`, [w, w]),
      bias(`${blk}.down.bias`, w),
      f16(`${blk}.ada.weight`, [w, 3 * w]),
      bias(`${blk}.ada.bias`, 3 * w),
    );
  }
  tensors.push(
    f16('a.gen.flow.final.ada.weight', [w, 2 * w]),
    bias('a.gen.flow.final.ada.bias', 2 * w),
    f16('a.gen.flow.final.proj.weight', [w, l]),
    bias('a.gen.flow.final.proj.bias', l),
    // End of speech: a score of -10 against llama.cpp's threshold of -4, whatever the state.
    f32Tensor('a.gen.out_eos.weight', [e, 1], zeros),
    f32Tensor('a.gen.out_eos.bias', [1], { kind: 'constant', value: -10 }),
    f16('a.gen.input_linear.weight', [l, e]),
    f32Tensor('a.gen.emb_mean', [l], zeros),
    f32Tensor('a.gen.emb_std', [l], ones),
    // The Mimi decoder: latents to its width, upsampled 16 times (depthwise, kernel 32).
    f16('a.gen.wav.quant_out.weight', [l, d]),
    f32Tensor('a.gen.wav.upsample.weight', [32, 1, d], convWeights),
  );
  tensors.push(...mimiTransformer('a.gen.wav.tfm'));
  // SEANet's decoder: kernel 7 in, three stages (transposed conv of kernel 2 × stride, then a
  // residual unit), kernel 7 out to one channel. Convolution kernels are [K, in, out]; transposed
  // ones [K, out, in].
  const seanet = 'a.gen.wav.seanet';
  const conv = (name: string, dims: number[]) => ({
    name,
    dims,
    type: 'F32' as const,
    data: convWeights,
  });
  let channels: number = c.seanetChannels;
  tensors.push(
    conv(`${seanet}.conv_in.weight`, [7, d, channels]),
    bias(`${seanet}.conv_in.bias`, channels),
  );
  const strides = [6, 5, 4];
  strides.forEach((stride, i) => {
    const out = channels / 2;
    tensors.push(
      conv(`${seanet}.blk.${i}.scale_conv.weight`, [2 * stride, out, channels]),
      bias(`${seanet}.blk.${i}.scale_conv.bias`, out),
      conv(`${seanet}.blk.${i}.res_conv1.weight`, [3, out, out / 2]),
      bias(`${seanet}.blk.${i}.res_conv1.bias`, out / 2),
      conv(`${seanet}.blk.${i}.res_conv2.weight`, [1, out / 2, out]),
      bias(`${seanet}.blk.${i}.res_conv2.bias`, out),
    );
    channels = out;
  });
  tensors.push(
    conv(`${seanet}.conv_out.weight`, [7, channels, 1]),
    bias(`${seanet}.conv_out.bias`, 1),
  );
  tensors.push(...voiceEncoder());
  // A predefined voice (llama.cpp reads `voice.NAME` tensors): rows in the backbone's embedding
  // that condition it before the text.
  tensors.push(f32Tensor(`voice.${speechVoice}`, [e, 4], randomWeights));
  return { metadata, tensors };
}

/** A Mimi transformer's blocks under `prefix`: pre-norm, layer scale on both residual paths. */
function mimiTransformer(prefix: string): GgufTensor[] {
  const c = speechModelConfig;
  const d = c.mimiWidth;
  const tensors: GgufTensor[] = [];
  for (let i = 0; i < c.mimiBlocks; i++) {
    const blk = `${prefix}.blk.${i}`;
    tensors.push(
      ...layerNorm(`${blk}.ln1`, d),
      f16Tensor(`${blk}.attn_q.weight`, [d, d]),
      f16Tensor(`${blk}.attn_k.weight`, [d, d]),
      f16Tensor(`${blk}.attn_v.weight`, [d, d]),
      f16Tensor(`${blk}.attn_out.weight`, [d, d]),
      f32Tensor(`${blk}.ls1.weight`, [d], ones),
      ...layerNorm(`${blk}.ln2`, d),
      f16Tensor(`${blk}.ffn_up.weight`, [d, c.mimiFeedForward]),
      f16Tensor(`${blk}.ffn_down.weight`, [c.mimiFeedForward, d]),
      f32Tensor(`${blk}.ls2.weight`, [d], ones),
    );
  }
  return tensors;
}

/**
 * The voice encoder (`pockettts_spkenc`): SEANet's encoder (strides 4, 5, 6, channels doubling),
 * the Mimi transformer, a stride-16 downsampling conv and the projection into the backbone.
 */
function voiceEncoder(): GgufTensor[] {
  const c = speechModelConfig;
  const d = c.mimiWidth;
  const seanet = 'a.seanet';
  const bias = (name: string, n: number) => f32Tensor(name, [n], zeros);
  let channels: number = c.seanetChannels / 8;
  const tensors: GgufTensor[] = [
    f32Tensor(`${seanet}.conv_in.weight`, [7, 1, channels], convWeights),
    bias(`${seanet}.conv_in.bias`, channels),
  ];
  [4, 5, 6].forEach((stride, i) => {
    tensors.push(
      f32Tensor(`${seanet}.blk.${i}.res_conv1.weight`, [3, channels, channels / 2], convWeights),
      bias(`${seanet}.blk.${i}.res_conv1.bias`, channels / 2),
      f32Tensor(`${seanet}.blk.${i}.res_conv2.weight`, [1, channels / 2, channels], convWeights),
      bias(`${seanet}.blk.${i}.res_conv2.bias`, channels),
      f32Tensor(
        `${seanet}.blk.${i}.scale_conv.weight`,
        [2 * stride, channels, 2 * channels],
        convWeights,
      ),
      bias(`${seanet}.blk.${i}.scale_conv.bias`, 2 * channels),
    );
    channels *= 2;
  });
  tensors.push(
    f32Tensor(`${seanet}.conv_out.weight`, [7, channels, d], convWeights),
    bias(`${seanet}.conv_out.bias`, d),
    ...mimiTransformer('a'),
    f32Tensor('a.downsample.conv.weight', [32, d, d], convWeights),
    f16Tensor('a.speaker_proj.weight', [d, c.embedding]),
  );
  return tensors;
}

/** Paths of the speech fixtures written by {@link ensureSpeechFixtures}. */
export interface SpeechFixturePaths {
  /** `tiny-pocket-tts.gguf`: the backbone. */
  model: string;
  /** `mmproj-tiny-pocket-tts.gguf`: the flow net and the decoder. */
  projector: string;
}

/** Writes the speech fixtures into `dir`, rewriting only files that are missing or differ. */
export async function ensureSpeechFixtures(dir: string): Promise<SpeechFixturePaths> {
  await mkdir(dir, { recursive: true });
  const model = join(dir, 'tiny-pocket-tts.gguf');
  const projector = join(dir, 'mmproj-tiny-pocket-tts.gguf');
  await writeIfChanged(model, encodeGguf(speechModel()));
  await writeIfChanged(projector, encodeGguf(speechProjector()));
  return { model, projector };
}
