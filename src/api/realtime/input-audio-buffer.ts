import { LmtabError } from '../../errors/index.js';
import { realtimeRate } from './pcm-base64.js';

/**
 * A session's input audio buffer: the samples appended since the last commit or clear, bounded,
 * with positions counted from the session's first sample (as VAD events give them).
 */
export class InputAudioBuffer {
  #pieces: Int16Array[] = [];
  #samples = 0;
  #heard = 0;

  /** @param maxBytes most uncommitted audio, in bytes of 16-bit PCM */
  constructor(readonly maxBytes: number) {}

  /** Samples appended since the session began. */
  get heard(): number {
    return this.#heard;
  }

  /** Milliseconds of audio waiting. */
  get milliseconds(): number {
    return (this.#samples * 1000) / realtimeRate;
  }

  /** Adds samples; more than `maxBytes` waiting is refused. */
  append(samples: Int16Array): void {
    if ((this.#samples + samples.length) * 2 > this.maxBytes) {
      throw new LmtabError(
        'invalid_request',
        `input_audio_buffer.append: the buffer holds at most ${Math.floor(this.maxBytes / 2 / realtimeRate)} s of audio; commit or clear it (received ${samples.length} samples more, ${this.#samples} waiting).`,
        { param: 'audio' },
      );
    }
    this.#pieces.push(samples);
    this.#samples += samples.length;
    this.#heard += samples.length;
  }

  /** Drops samples before `sample` (counted from the session's first). */
  keepFrom(sample: number): void {
    let drop = sample - (this.#heard - this.#samples);
    while (drop > 0 && this.#pieces.length > 0) {
      const first = this.#pieces[0]!;
      if (first.length <= drop) {
        this.#pieces.shift();
        this.#samples -= first.length;
        drop -= first.length;
      } else {
        this.#pieces[0] = first.subarray(drop);
        this.#samples -= drop;
        drop = 0;
      }
    }
  }

  /** Everything waiting, joined; the buffer is then empty. */
  take(): Int16Array {
    const samples = new Int16Array(this.#samples);
    let at = 0;
    for (const piece of this.#pieces) {
      samples.set(piece, at);
      at += piece.length;
    }
    this.clear();
    return samples;
  }

  clear(): void {
    this.#pieces = [];
    this.#samples = 0;
  }
}
