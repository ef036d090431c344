/** A mono 16-bit WAV of `samples` samples at `rate`, with a LIST chunk before `data`. */
export function testWav(samples: number, rate = 16_000): Uint8Array {
  const list = 12;
  const bytes = new Uint8Array(44 + 8 + list + samples * 2);
  const view = new DataView(bytes.buffer);
  const ascii = (at: number, text: string) =>
    [...text].forEach((c, i) => view.setUint8(at + i, c.charCodeAt(0)));
  ascii(0, 'RIFF');
  view.setUint32(4, bytes.length - 8, true);
  ascii(8, 'WAVEfmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, rate, true);
  view.setUint32(28, rate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  ascii(36, 'LIST');
  view.setUint32(40, list, true);
  ascii(44 + list, 'data');
  view.setUint32(48 + list, samples * 2, true);
  return bytes;
}
