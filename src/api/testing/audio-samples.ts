import { wavFile } from '../media/wav-file.js';

/** A silent WAV of `samples` samples at `rate`, with a `LIST` chunk before `data`. */
export function testWav(samples: number, rate = 16_000): Uint8Array {
  return wavFile(new Uint8Array(samples * 2), rate, { list: 12 });
}
