import { decodeBase64 } from '../media/decode-image.js';
import { LmtabError } from '../../errors/index.js';
import { realtimeRate } from './pcm-base64.js';

export { encodePcm16, realtimeRate } from './pcm-base64.js';

/** Samples of one `input_audio_buffer.append` (base64 16-bit little-endian PCM). */
export function decodePcm16(base64: string, param: string): Int16Array {
  const bytes = decodeBase64(base64, param, 'audio');
  if (bytes.length % 2 !== 0) {
    throw new LmtabError(
      'invalid_request',
      `Invalid audio at \`${param}\`: expected 16-bit PCM (an even number of bytes), received ${bytes.length} bytes.`,
      { param },
    );
  }
  return new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2).slice();
}

/** 16-bit little-endian PCM bytes (as the engine speaks, after a WAV header or raw) at `from` Hz, as samples at 24 kHz. */
export function resamplePcm16(bytes: Uint8Array, from: number): Int16Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = Math.floor(bytes.byteLength / 2);
  const input = new Int16Array(count);
  for (let i = 0; i < count; i++) input[i] = view.getInt16(i * 2, true);
  if (from === realtimeRate) return input;
  // Linear interpolation: speech loses nothing a listener hears at these rates.
  const out = new Int16Array(Math.floor((count * realtimeRate) / from));
  const step = from / realtimeRate;
  for (let i = 0; i < out.length; i++) {
    const at = i * step;
    const left = Math.floor(at);
    const right = Math.min(left + 1, count - 1);
    const t = at - left;
    out[i] = Math.round(input[left]! * (1 - t) + input[right]! * t);
  }
  return out;
}

/** Options of {@link VoiceActivity}: OpenAI's `server_vad` settings. */
export interface VoiceActivityOptions {
  /** 0 to 1: how loud speech must be; OpenAI's default 0.5. */
  threshold: number;
  /** Audio kept before the detected start, in ms. */
  prefixPaddingMs: number;
  /** Silence that ends a turn, in ms. */
  silenceDurationMs: number;
}

/** A change {@link VoiceActivity} saw, at a position of the input buffer in ms. */
export type VoiceEvent = { type: 'started'; atMs: number } | { type: 'stopped'; atMs: number };

/** 20 ms frames at 24 kHz. */
const frameSamples = 480;

/**
 * OpenAI's `server_vad` as an energy detector: speech starts when a 20 ms frame's RMS passes the
 * threshold (0.5 is an RMS of 0.05 of full scale, about -26 dBFS: a voice near a microphone) and
 * stops after `silenceDurationMs` below it.
 */
export class VoiceActivity {
  #speaking = false;
  #quietMs = 0;
  #carry: number[] = [];
  #atMs = 0;

  constructor(readonly options: VoiceActivityOptions) {}

  /** Whether the detector is inside speech now. */
  get speaking(): boolean {
    return this.#speaking;
  }

  /** Feeds samples; returns the starts and stops they hold, in order. */
  push(samples: Int16Array): VoiceEvent[] {
    const events: VoiceEvent[] = [];
    const level = this.options.threshold / 10;
    const frame = this.#carry;
    for (const sample of samples) {
      frame.push(sample / 32768);
      if (frame.length < frameSamples) continue;
      let sum = 0;
      for (const x of frame) sum += x * x;
      const loud = Math.sqrt(sum / frame.length) >= level;
      frame.length = 0;
      this.#atMs += 20;
      if (loud) {
        this.#quietMs = 0;
        if (!this.#speaking) {
          this.#speaking = true;
          events.push({ type: 'started', atMs: Math.max(0, this.#atMs - 20) });
        }
      } else if (this.#speaking) {
        this.#quietMs += 20;
        if (this.#quietMs >= this.options.silenceDurationMs) {
          this.#speaking = false;
          this.#quietMs = 0;
          events.push({ type: 'stopped', atMs: this.#atMs });
        }
      }
    }
    return events;
  }

  /** Forgets the current turn (the buffer was cleared or committed by hand). */
  reset(): void {
    this.#speaking = false;
    this.#quietMs = 0;
  }
}
