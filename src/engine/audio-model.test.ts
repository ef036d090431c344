import { describe, expect, it } from 'vitest';
import { createFloatToPcm16 } from './audio-model.js';

describe('createFloatToPcm16', () => {
  it('turns float samples into 16-bit little-endian ones, clamped, across split pieces', () => {
    const floats = new Float32Array([0, 0.5, -0.5, 1, -1, 2, -2]);
    const bytes = new Uint8Array(floats.buffer);
    const convert = createFloatToPcm16();
    // Pieces that cut samples in the middle: 3 bytes, then 10, then the rest.
    const pieces = [bytes.subarray(0, 3), bytes.subarray(3, 13), bytes.subarray(13)].map(convert);
    expect(pieces.map((p) => p.length)).toEqual([0, 6, 8]);
    const joined = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const piece of pieces) {
      joined.set(piece, at);
      at += piece.length;
    }
    expect([...new Int16Array(joined.buffer)]).toEqual([
      0, 16383, -16383, 32767, -32767, 32767, -32767,
    ]);
  });
});
