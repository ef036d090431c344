// Inputs for the tests of lmtab's kernels (wasm/kernels/k-quants.test.ts on the wasm32 module,
// tests/webgpu/memory64-kernels.test.ts on the wasm64 one).

/** Deterministic bytes (a 32-bit LCG), so that a failure can be replayed. */
export function randomBytes(count: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(count);
  let state = seed >>> 0;
  for (let i = 0; i < count; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    bytes[i] = state >>> 16;
  }
  return bytes;
}

/** A half between 2^-10 and 2^1 with either sign, from two random bytes. */
export function randomHalf(a: number, b: number): number {
  return ((b & 0x80) << 8) | ((5 + (a % 12)) << 10) | (((b & 0x7f) << 3) | (a & 7));
}
