/**
 * A mono 16-bit PCM WAV file: its 44-byte header for `dataBytes` bytes of samples at `rate`, then
 * `samples` (fewer than `dataBytes` for a stream's first piece), with a `LIST` chunk of `list`
 * bytes before `data` when asked (players and readers must skip chunks they do not know).
 */
export function wavFile(
  samples: Uint8Array,
  rate: number,
  { dataBytes = samples.length, list = 0 }: { dataBytes?: number; list?: number } = {},
): Uint8Array {
  const head = 44 + (list > 0 ? 8 + list : 0);
  const bytes = new Uint8Array(head + samples.length);
  const view = new DataView(bytes.buffer);
  const ascii = (at: number, text: string) =>
    [...text].forEach((c, i) => view.setUint8(at + i, c.charCodeAt(0)));
  ascii(0, 'RIFF');
  view.setUint32(4, head - 8 + dataBytes, true);
  ascii(8, 'WAVEfmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, rate, true);
  view.setUint32(28, rate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  if (list > 0) {
    ascii(36, 'LIST');
    view.setUint32(40, list, true);
  }
  ascii(head - 8, 'data');
  view.setUint32(head - 4, dataBytes, true);
  bytes.set(samples, head);
  return bytes;
}

/** Samples from -1 to 1 as 16-bit little-endian PCM (clamped), for {@link wavFile}. */
export function pcm16(samples: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(samples.length * 2);
  const view = new DataView(out.buffer);
  for (let i = 0; i < samples.length; i++) {
    view.setInt16(i * 2, Math.round(Math.max(-1, Math.min(1, samples[i]!)) * 32767), true);
  }
  return out;
}
