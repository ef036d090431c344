import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { wavFile } from '../../src/api/wire.js';
import { encodeGguf } from './gguf-writer.js';
import type { GgufModel, GgufTensor, GgufValue } from './gguf-writer.js';
import {
  bool,
  f16Tensor,
  f32,
  f32Tensor,
  layerNorm,
  randomWeights,
  str,
  u32,
  zeros,
} from './gguf-values.js';
import { lfm2Configs, lfm2Model } from './lfm2-fixtures.js';
import { writeIfChanged } from './write-if-changed.js';

/**
 * Audio encoder settings of the tiny audio projector: a Whisper-shaped encoder (llama.cpp's
 * projector type `qwen2a`, Qwen2-Audio's), 128 mel bins as Whisper large v3 reads.
 */
export const audioProjectorConfig = {
  melBins: 128,
  embedding: 64,
  feedForward: 128,
  blocks: 2,
  heads: 2,
  /** Whisper's positions: 30 s of 10 ms frames after the stride-2 convolution. */
  positions: 1500,
} as const;

/** The sample rate the encoder hears (Whisper's). */
export const audioSampleRate = 16_000;

/**
 * The audio projector (`clip` architecture, projector `qwen2a`, audio encoder only) for the tiny
 * text model: a real Whisper encoder graph in llama.cpp (conv1d stem, position embeddings,
 * pre-norm blocks, a linear projection into the text model's embedding), random weights.
 */
export function audioProjector(name = 'mmproj-tiny-lfm2-audio'): GgufModel {
  const textE = lfm2Configs.tiny.embedding;
  const {
    melBins,
    embedding: ea,
    feedForward: fa,
    blocks,
    heads,
    positions,
  } = audioProjectorConfig;
  const metadata: Record<string, GgufValue> = {
    'general.architecture': str('clip'),
    'general.type': str('mmproj'),
    'general.name': str(name),
    'general.file_type': u32(1),
    'clip.has_audio_encoder': bool(true),
    'clip.projector_type': str('qwen2a'),
    'clip.audio.num_mel_bins': u32(melBins),
    'clip.audio.projection_dim': u32(textE),
    'clip.audio.embedding_length': u32(ea),
    'clip.audio.feed_forward_length': u32(fa),
    'clip.audio.block_count': u32(blocks),
    'clip.audio.attention.head_count': u32(heads),
    'clip.audio.attention.layer_norm_epsilon': f32(1e-5),
  };
  const f16 = f16Tensor;
  const tensors: GgufTensor[] = [
    // Kernel 3 over the mel bins, then over the channels; biases are rows llama.cpp broadcasts.
    f16('a.conv1d.1.weight', [3, melBins, ea]),
    f32Tensor('a.conv1d.1.bias', [1, ea], zeros),
    f16('a.conv1d.2.weight', [3, ea, ea]),
    f32Tensor('a.conv1d.2.bias', [1, ea], zeros),
    f32Tensor('a.position_embd.weight', [ea, positions], randomWeights),
  ];
  for (let i = 0; i < blocks; i++) {
    const blk = `a.blk.${i}`;
    tensors.push(
      f16(`${blk}.attn_q.weight`, [ea, ea]),
      f32Tensor(`${blk}.attn_q.bias`, [ea], zeros),
      // Whisper's key projection has no bias.
      f16(`${blk}.attn_k.weight`, [ea, ea]),
      f16(`${blk}.attn_v.weight`, [ea, ea]),
      f32Tensor(`${blk}.attn_v.bias`, [ea], zeros),
      f16(`${blk}.attn_out.weight`, [ea, ea]),
      f32Tensor(`${blk}.attn_out.bias`, [ea], zeros),
      ...layerNorm(`${blk}.ln1`, ea),
      ...layerNorm(`${blk}.ln2`, ea),
      f16(`${blk}.ffn_up.weight`, [ea, fa]),
      f32Tensor(`${blk}.ffn_up.bias`, [fa], zeros),
      f16(`${blk}.ffn_down.weight`, [fa, ea]),
      f32Tensor(`${blk}.ffn_down.bias`, [ea], zeros),
    );
  }
  tensors.push(
    ...layerNorm('a.post_ln', ea),
    f16('mm.a.fc.weight', [ea, textE]),
    f32Tensor('mm.a.fc.bias', [textE], zeros),
  );
  return { metadata, tensors };
}

/**
 * A mono 16-bit PCM WAV file: a tone of `hz` for `seconds` at `rate`, with a quiet noise floor
 * (seeded), so the encoder reads a real spectrum.
 */
export function wavTone(seconds = 1, hz = 440, rate = audioSampleRate): Uint8Array {
  const count = Math.round(seconds * rate);
  const samples = new Uint8Array(count * 2);
  const view = new DataView(samples.buffer);
  let seed = 12345;
  for (let i = 0; i < count; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const noise = (seed / 2 ** 32 - 0.5) * 0.02;
    const value = 0.4 * Math.sin((2 * Math.PI * hz * i) / rate) + noise;
    view.setInt16(i * 2, Math.round(Math.max(-1, Math.min(1, value)) * 32767), true);
  }
  return wavFile(samples, rate);
}

/** {@link wavTone}'s tone for 0.8 s, then 5.2 s of silence: one spoken turn and its pause. */
export function wavTurn(rate = audioSampleRate): Uint8Array {
  const tone = wavTone(0.8, 440, rate).subarray(44);
  const samples = new Uint8Array(Math.round(6 * rate) * 2);
  samples.set(tone);
  return wavFile(samples, rate);
}

/** Paths of the audio fixtures written by {@link ensureAudioFixtures}. */
export interface AudioFixturePaths {
  /** `tiny-lfm2-audio.gguf`: the tiny text model, named for its audio projector. */
  model: string;
  /** `mmproj-tiny-lfm2-audio.gguf`: the audio projector. */
  projector: string;
  /** `tone-1s.wav`: one second of a 440 Hz tone at 16 kHz. */
  wav: string;
  /**
   * `turn-6s.wav`: a spoken turn's shape, 0.8 s of tone then 5.2 s of silence (Chromium's fake
   * microphone plays it in a loop: one turn every 6 s).
   */
  turn: string;
}

/** Writes the audio fixtures into `dir`, rewriting only files that are missing or differ. */
export async function ensureAudioFixtures(dir: string): Promise<AudioFixturePaths> {
  await mkdir(dir, { recursive: true });
  const files: [keyof AudioFixturePaths, string, () => Uint8Array][] = [
    ['model', 'tiny-lfm2-audio.gguf', () => encodeGguf(lfm2Model({ name: 'tiny-lfm2-audio' }))],
    ['projector', 'mmproj-tiny-lfm2-audio.gguf', () => encodeGguf(audioProjector())],
    ['wav', 'tone-1s.wav', () => wavTone()],
    ['turn', 'turn-6s.wav', () => wavTurn()],
  ];
  const paths = {} as AudioFixturePaths;
  for (const [key, file, bytes] of files) {
    paths[key] = join(dir, file);
    await writeIfChanged(paths[key], bytes());
  }
  return paths;
}
