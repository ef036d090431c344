import { LmtabError } from '../errors/index.js';

/** What a model must have to hear: an audio encoder in its projector (llama.cpp's mtmd). */
const hearingNeed =
  'a GGUF model with an audio projector (an mmproj with an audio encoder, as LFM2.5-Audio and LFM3-Audio ship), run by wllama';

/** A 400 for audio sent to a model that cannot hear it, with why it cannot. */
export function cannotHear(model: string, why: string): LmtabError {
  return new LmtabError(
    'invalid_request',
    `Model "${model}" cannot hear audio: ${why}. Expected ${hearingNeed}.`,
    { param: 'model' },
  );
}

/** A 400 for speech asked of a model that cannot speak, with why it cannot. */
export function cannotSpeak(model: string, why: string): LmtabError {
  return new LmtabError(
    'invalid_request',
    `Model "${model}" cannot speak: ${why}. Expected a GGUF model that generates audio (an mmproj with an audio generator, as LFM2.5-Audio and LFM3-Audio ship), run by wllama.`,
    { param: 'model' },
  );
}

/** An async iterable whose first read throws `error` (an engine that refuses a stream). */
export async function* rejecting<T>(error: Error): AsyncGenerator<T> {
  yield* [] as T[];
  throw error;
}

/**
 * Turns a stream of 32-bit float samples (llama.cpp's raw speech, in pieces that may split a
 * sample) into 16-bit little-endian PCM, clamped to [-1, 1] as llama.cpp's own WAV writer does.
 */
export function createFloatToPcm16(): (bytes: Uint8Array) => Uint8Array {
  let carry = new Uint8Array(0);
  return (bytes) => {
    const joined = new Uint8Array(carry.length + bytes.length);
    joined.set(carry);
    joined.set(bytes, carry.length);
    const count = Math.floor(joined.length / 4);
    carry = joined.slice(count * 4);
    const input = new DataView(joined.buffer, 0, count * 4);
    const out = new Uint8Array(count * 2);
    const output = new DataView(out.buffer);
    for (let i = 0; i < count; i++) {
      const sample = Math.max(-1, Math.min(1, input.getFloat32(i * 4, true)));
      output.setInt16(i * 2, Math.trunc(sample * 32767), true);
    }
    return out;
  };
}
