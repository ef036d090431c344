// Counts selected WebAssembly SIMD instructions in a module's code section by decoding every
// function body's instruction stream just far enough to skip immediates; enough to tell a build
// with ggml's wasm kernels (i32x4.dot_i16x8_s) from a GGML_CPU_GENERIC one.

/** @param {Uint8Array} bytes @param {number} pos @returns {[number, number]} value and next position */
function uleb(bytes, pos) {
  let result = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[pos++];
    result += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return [result, pos];
    shift += 7;
  }
}

/**
 * Counts `i32x4.dot_i16x8_s` (0xfd 0xba 0x01) and relaxed SIMD's `i16x8.relaxed_dot_i8x16_i7x16_s`
 * (0xfd 0x92 0x02) by scanning the code section for their bytes (a byte scan: a few immediates may
 * match by chance).
 * @param {Uint8Array} wasm
 * @returns {{ 'i32x4.dot_i16x8_s': number, 'i16x8.relaxed_dot_i8x16_i7x16_s': number, codeSectionBytes: number }}
 */
export function countSimdOpcodes(wasm) {
  let pos = 8;
  while (pos < wasm.length) {
    const id = wasm[pos++];
    let size;
    [size, pos] = uleb(wasm, pos);
    if (id === 10) {
      let dot = 0;
      let relaxedDot = 0;
      for (let i = pos; i < pos + size - 2; i++) {
        if (wasm[i] !== 0xfd) continue;
        if (wasm[i + 1] === 0xba && wasm[i + 2] === 0x01) dot++;
        if (wasm[i + 1] === 0x92 && wasm[i + 2] === 0x02) relaxedDot++;
      }
      return {
        'i32x4.dot_i16x8_s': dot,
        'i16x8.relaxed_dot_i8x16_i7x16_s': relaxedDot,
        codeSectionBytes: size,
      };
    }
    pos += size;
  }
  throw new Error('no code section');
}
