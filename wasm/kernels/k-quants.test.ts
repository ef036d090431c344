import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeQ4_K, decodeQ6_K, halfBitsToNumber } from '../../tests/support/gguf-writer.js';
import { randomBytes, randomHalf } from '../../tests/support/kernel-inputs.js';

// lmtab's kernels (the committed lmtab-kernels.wasm) against ggml's definitions of Q4_K, Q6_K, Q8_K
// and Q8_0, computed value by value (the test fixtures' decoders).

const QK_K = 256;
const Q4_K_BYTES = 144;
const Q6_K_BYTES = 210;
const Q8_K_BYTES = 292;
const kernelsWasm = readFileSync(join(import.meta.dirname, '..', 'prebuilt', 'lmtab-kernels.wasm'));

type ToFloat = (x: number, y: number, k: bigint) => void;

type Kernel = (
  n: number,
  s: number,
  bs: number,
  vx: number,
  bx: number,
  vy: number,
  by: number,
  nrc: number,
) => void;

let memory: WebAssembly.Memory;
let kernels: { q8_0: Kernel; q4_K: Kernel; q6_K: Kernel; q8_0ToFloat: ToFloat };

beforeAll(() => {
  // Node 20's V8 has relaxed SIMD behind a flag (Chromium and Node 22 ship it).
  if (!WebAssembly.validate(kernelsWasm)) setFlagsFromString('--experimental-wasm-relaxed-simd');
  memory = new WebAssembly.Memory({ initial: 16, maximum: 65536, shared: true });
  const exports = new WebAssembly.Instance(new WebAssembly.Module(kernelsWasm), {
    env: { memory },
  }).exports as Record<string, Kernel & ToFloat>;
  // The Q8_0 kernel reads ggml's table of halves as floats at its address in the engine.
  const manifest = JSON.parse(
    readFileSync(join(import.meta.dirname, '..', 'prebuilt', 'manifest.json'), 'utf8'),
  ) as { kernels: { f16Table: number } };
  const table = new Float32Array(memory.buffer, manifest.kernels.f16Table, 1 << 16);
  for (let h = 0; h < 1 << 16; h++) table[h] = halfBitsToNumber(h);
  kernels = {
    q8_0: exports.lmtab_vec_dot_q8_0_q8_0,
    q4_K: exports.lmtab_vec_dot_q4_K_q8_K,
    q6_K: exports.lmtab_vec_dot_q6_K_q8_K,
    q8_0ToFloat: exports.lmtab_dequantize_row_q8_0,
  };
});

interface Activations {
  d: number;
  qs: Int8Array;
}

/** Q8_K blocks (float d, 256 int8 values, 16 sums of 16) written at `at`. */
function writeQ8K(at: number, blocks: Activations[]) {
  const view = new DataView(memory.buffer);
  blocks.forEach((block, b) => {
    const base = at + b * Q8_K_BYTES;
    view.setFloat32(base, block.d, true);
    for (let i = 0; i < QK_K; i++) view.setInt8(base + 4 + i, block.qs[i]);
    for (let g = 0; g < 16; g++) {
      let sum = 0;
      for (let i = 0; i < 16; i++) sum += block.qs[16 * g + i];
      view.setInt16(base + 4 + QK_K + 2 * g, sum, true);
    }
  });
}

function randomActivations(count: number, seed: number, extreme?: number): Activations[] {
  return Array.from({ length: count }, (_, b) => {
    const bytes = randomBytes(QK_K, seed + b);
    const qs = new Int8Array(QK_K).map((_, i) => extreme ?? (bytes[i] % 255) - 127);
    return { d: 0.0123 * (b + 1), qs };
  });
}

/** The dot product of dequantized weights (ggml's definitions) with Q8_K activations. */
function referenceWith(decode: (bytes: Uint8Array) => Float64Array) {
  return (block: Uint8Array, y: Activations) => {
    const weights = decode(block);
    let sum = 0;
    let magnitude = 0;
    weights.forEach((w, i) => {
      const term = w * y.d * y.qs[i];
      sum += term;
      magnitude += Math.abs(term);
    });
    return { sum, magnitude };
  };
}
const q4KReference = referenceWith(decodeQ4_K);
const q6KReference = referenceWith(decodeQ6_K);

const weightsAt = 1024;
const activationsAt = 65536;
const resultAt = 16;

/** A row's dot product by ggml's definitions, block by block, and the magnitude of its terms. */
function referenceRow(
  blocks: Uint8Array[],
  activations: Activations[],
  reference: (block: Uint8Array, y: Activations) => { sum: number; magnitude: number },
): { sum: number; magnitude: number } {
  let sum = 0;
  let magnitude = 0;
  blocks.forEach((block, b) => {
    const part = reference(block, activations[b]);
    sum += part.sum;
    magnitude += part.magnitude;
  });
  return { sum, magnitude };
}

function check(
  kernel: Kernel,
  blockBytes: number,
  blocks: Uint8Array[],
  activations: Activations[],
  reference: (block: Uint8Array, y: Activations) => { sum: number; magnitude: number },
) {
  const heap = new Uint8Array(memory.buffer);
  blocks.forEach((block, b) => heap.set(block, weightsAt + b * blockBytes));
  writeQ8K(activationsAt, activations);
  kernel(QK_K * blocks.length, resultAt, 0, weightsAt, 0, activationsAt, 0, 1);
  const got = new DataView(memory.buffer).getFloat32(resultAt, true);
  const { sum, magnitude } = referenceRow(blocks, activations, reference);
  // float32 arithmetic over exact integer sums: the error is a few ulps of the terms' magnitude.
  expect(Math.abs(got - sum)).toBeLessThanOrEqual(1e-6 * magnitude + 1e-30);
}

function q4KBlocks(count: number, seed: number, fill?: number): Uint8Array[] {
  return Array.from({ length: count }, (_, b) => {
    const block = randomBytes(Q4_K_BYTES, seed * 31 + b);
    const d = randomHalf(block[0], block[1]);
    const dmin = randomHalf(block[2], block[3]) & 0x7fff;
    block.set([d & 0xff, d >> 8, dmin & 0xff, dmin >> 8]);
    if (fill !== undefined) block.fill(fill, 4);
    return block;
  });
}

function q6KBlocks(count: number, seed: number, fill?: number): Uint8Array[] {
  return Array.from({ length: count }, (_, b) => {
    const block = randomBytes(Q6_K_BYTES, seed * 37 + b);
    if (fill !== undefined) block.fill(fill, 0, 208);
    const d = randomHalf(block[208], block[209]);
    block.set([d & 0xff, d >> 8], 208);
    return block;
  });
}

describe("lmtab's relaxed-SIMD K-quant kernels (wasm/kernels/k-quants.c)", () => {
  it('Q4_K x Q8_K equals the value-by-value dot product', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const count = 1 + (seed % 4);
      check(
        kernels.q4_K,
        Q4_K_BYTES,
        q4KBlocks(count, seed),
        randomActivations(count, seed),
        q4KReference,
      );
    }
  });

  it('Q4_K at the extremes: every value 15 with scales and mins 63, activations -128 and 127', () => {
    for (const activation of [-128, 127]) {
      check(
        kernels.q4_K,
        Q4_K_BYTES,
        q4KBlocks(2, 7, 0xff),
        randomActivations(2, 7, activation),
        q4KReference,
      );
    }
  });

  it("Q4_K and Q6_K with subnormal scales (most of Q6_K's in real files) and zero ones", () => {
    for (const half of [0x0001, 0x01a7, 0x83ff, 0x0000, 0x8000]) {
      const q4 = q4KBlocks(2, 5);
      for (const block of q4) block.set([half & 0xff, half >> 8], 0);
      check(kernels.q4_K, Q4_K_BYTES, q4, randomActivations(2, 5), q4KReference);
      const q6 = q6KBlocks(2, 6);
      for (const block of q6) block.set([half & 0xff, half >> 8], 208);
      check(kernels.q6_K, Q6_K_BYTES, q6, randomActivations(2, 6), q6KReference);
    }
  });

  it('Q6_K x Q8_K equals the value-by-value dot product', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const count = 1 + (seed % 4);
      check(
        kernels.q6_K,
        Q6_K_BYTES,
        q6KBlocks(count, seed),
        randomActivations(count, seed),
        q6KReference,
      );
    }
  });

  it('Q6_K at the extremes: values 0 and 63, scales -1 and 127, activations -128 and 127', () => {
    for (const fill of [0x00, 0xff, 0x7f]) {
      for (const activation of [-128, 127]) {
        check(
          kernels.q6_K,
          Q6_K_BYTES,
          q6KBlocks(2, 9, fill),
          randomActivations(2, 9, activation),
          q6KReference,
        );
      }
    }
  });

  it('Q8_0 to floats gives each value times its block scale, rounded once as ggml does', () => {
    // Scales from 2^-10 to 2^1 of either sign, and two subnormal halves; values across int8.
    const halves = [0x0001, 0x83ff, 0x3c00];
    for (let seed = 1; seed <= 20; seed++) halves.push(randomHalf(seed * 7, seed * 13));
    const blocks = halves.length;
    const bytes = randomBytes(34 * blocks, 5);
    halves.forEach((half, b) => bytes.set([half & 0xff, half >> 8], 34 * b));
    bytes.set([127, 128, 0, 255], 2);
    const heap = new Uint8Array(memory.buffer);
    heap.set(bytes, weightsAt);
    const out = activationsAt;
    kernels.q8_0ToFloat(weightsAt, out, BigInt(32 * blocks));
    const got = new Float32Array(memory.buffer, out, 32 * blocks);
    const want = new Float32Array(32 * blocks);
    for (let b = 0; b < blocks; b++) {
      const d = halfBitsToNumber(halves[b]);
      for (let j = 0; j < 32; j++)
        want[32 * b + j] = Math.fround(((bytes[34 * b + 2 + j] << 24) >> 24) * d);
    }
    expect(Array.from(got)).toEqual(Array.from(want));
  });

  it('reads every half scale exactly: normal, subnormal, zeros, infinities and NaNs', () => {
    // Q8_0 blocks of scale h and values [1, 0, ...]: the first float of each is h as a float.
    const blocks = 1 << 16;
    const at = memory.buffer.byteLength;
    memory.grow(Math.ceil(((34 + 128) * blocks) / 65536));
    const heap = new Uint8Array(memory.buffer);
    for (let h = 0; h < blocks; h++) heap.set([h & 0xff, h >> 8, 1], at + 34 * h);
    const out = at + 34 * blocks;
    kernels.q8_0ToFloat(at, out, BigInt(32 * blocks));
    const got = new Float32Array(memory.buffer, out, 32 * blocks);
    const wrong: string[] = [];
    for (let h = 0; h < blocks; h++) {
      const want = Math.fround(halfBitsToNumber(h));
      if (!Object.is(got[32 * h], want))
        wrong.push(`0x${h.toString(16)}: ${got[32 * h]} for ${want}`);
    }
    expect(wrong.slice(0, 5)).toEqual([]);
  });

  it.each([2, 4])(
    'takes tiles of %i rows by as many columns (nrc): s[r + c * bs] is row r against column c',
    (nrc) => {
      const formats = [
        { kernel: kernels.q4_K, bytes: Q4_K_BYTES, blocks: q4KBlocks, reference: q4KReference },
        { kernel: kernels.q6_K, bytes: Q6_K_BYTES, blocks: q6KBlocks, reference: q6KReference },
      ];
      for (const { kernel, bytes, blocks, reference } of formats) {
        const count = 3;
        const rows = Array.from({ length: nrc }, (_, r) => blocks(count, 11 + r));
        const columns = Array.from({ length: nrc }, (_, c) => randomActivations(count, 21 + c));
        const heap = new Uint8Array(memory.buffer);
        const rowBytes = count * bytes;
        const columnBytes = count * Q8_K_BYTES;
        rows.forEach((row, r) =>
          row.forEach((block, b) => heap.set(block, weightsAt + r * rowBytes + b * bytes)),
        );
        columns.forEach((column, c) => writeQ8K(activationsAt + c * columnBytes, column));
        const bs = 16;
        kernel(QK_K * count, resultAt, bs, weightsAt, rowBytes, activationsAt, columnBytes, nrc);
        const got = new Float32Array(memory.buffer, resultAt, (nrc - 1) * bs + nrc);
        // Where each product's one-row call writes: past the tile's results.
        const aloneAt = resultAt + 4 * nrc * bs;
        for (const [r, row] of rows.entries()) {
          for (const [c, column] of columns.entries()) {
            const { sum, magnitude } = referenceRow(row, column, reference);
            expect(Math.abs(got[c * bs + r] - sum), `row ${r}, column ${c}`).toBeLessThanOrEqual(
              1e-6 * magnitude + 1e-30,
            );
            // A tile's product is the one-row call's to the bit: the same arithmetic per column.
            kernel(
              QK_K * count,
              aloneAt,
              0,
              weightsAt + r * rowBytes,
              0,
              activationsAt + c * columnBytes,
              0,
              1,
            );
            expect(
              new Float32Array(memory.buffer, aloneAt, 1)[0],
              `row ${r}, column ${c} alone`,
            ).toBe(got[c * bs + r]);
          }
        }
      }
    },
  );

  describe('Q8_0 x Q8_0', () => {
    /** Q8_0 blocks (half d, 32 int8 values) of random scales, values in [-127, 127]. */
    function q8_0Blocks(count: number, seed: number): Uint8Array {
      const bytes = randomBytes(34 * count, seed);
      for (let b = 0; b < count; b++) {
        const half =
          seed % 5 === 0 && b === 1 ? 0x0203 : randomHalf(bytes[34 * b], bytes[34 * b + 1]);
        bytes.set([half & 0xff, half >> 8], 34 * b);
        for (let j = 2; j < 34; j++) if (bytes[34 * b + j] === 0x80) bytes[34 * b + j] = 0x81;
      }
      return bytes;
    }

    /** Block b's scale (its half d) as a number. */
    const blockScale = (bytes: Uint8Array, b: number) =>
      halfBitsToNumber(bytes[34 * b] | (bytes[34 * b + 1] << 8));

    /** ggml's generic dot product in float32, step by step: exact block sums, scales, in order. */
    function ggmlDot(x: Uint8Array, y: Uint8Array, count: number): number {
      let sum = 0;
      for (let b = 0; b < count; b++) {
        let blockSum = 0;
        for (let j = 2; j < 34; j++) {
          blockSum += ((x[34 * b + j] << 24) >> 24) * ((y[34 * b + j] << 24) >> 24);
        }
        const dx = Math.fround(blockScale(x, b));
        const dy = Math.fround(blockScale(y, b));
        sum = Math.fround(sum + Math.fround(blockSum * Math.fround(dx * dy)));
      }
      return sum;
    }

    /** The kernel's one row by one column (nrc 1) of `count` blocks. */
    function rowDot(x: Uint8Array, y: Uint8Array, count: number): number {
      const heap = new Uint8Array(memory.buffer);
      heap.set(x, weightsAt);
      heap.set(y, activationsAt);
      kernels.q8_0(32 * count, resultAt, 0, weightsAt, 0, activationsAt, 0, 1);
      return new DataView(memory.buffer).getFloat32(resultAt, true);
    }

    /** The exact dot product and the magnitude of its terms (each block's sum times its scales). */
    function exactDot(x: Uint8Array, y: Uint8Array, count: number) {
      let sum = 0;
      let magnitude = 0;
      for (let b = 0; b < count; b++) {
        const scale = blockScale(x, b) * blockScale(y, b);
        for (let j = 2; j < 34; j++) {
          const term = ((x[34 * b + j] << 24) >> 24) * ((y[34 * b + j] << 24) >> 24) * scale;
          sum += term;
          magnitude += Math.abs(term);
        }
      }
      return { sum, magnitude };
    }

    /**
     * ggml's wasm kernel in float32, step by step: per block, lane k of 4 holds the products of
     * bytes 2k, 2k + 1, 2k + 8 and 2k + 9 of each 16-byte half, scaled and added to lane k; the
     * lanes are added in order at the end.
     */
    function ggmlWasmDot(x: Uint8Array, y: Uint8Array, count: number): number {
      const lanes = [0, 0, 0, 0];
      for (let b = 0; b < count; b++) {
        const dx = Math.fround(blockScale(x, b));
        const dy = Math.fround(blockScale(y, b));
        const scale = Math.fround(dx * dy);
        for (let k = 0; k < 4; k++) {
          let sum = 0;
          for (const j of [
            2 * k,
            2 * k + 1,
            2 * k + 8,
            2 * k + 9,
            16 + 2 * k,
            17 + 2 * k,
            24 + 2 * k,
            25 + 2 * k,
          ]) {
            sum += ((x[34 * b + 2 + j] << 24) >> 24) * ((y[34 * b + 2 + j] << 24) >> 24);
          }
          lanes[k] = Math.fround(lanes[k] + Math.fround(sum * scale));
        }
      }
      return Math.fround(Math.fround(Math.fround(lanes[0] + lanes[1]) + lanes[2]) + lanes[3]);
    }

    it("one row equals ggml's wasm kernel to the bit, for 1 to 9 blocks", () => {
      for (let seed = 1; seed <= 45; seed++) {
        const count = 1 + (seed % 9);
        const x = q8_0Blocks(count, seed + 500);
        const y = q8_0Blocks(count, seed + 1500);
        expect(rowDot(x, y, count), `seed ${seed}`).toBe(ggmlWasmDot(x, y, count));
      }
    });

    it('one row equals the value-by-value dot product, for 1 to 9 blocks', () => {
      for (let seed = 1; seed <= 45; seed++) {
        const count = 1 + (seed % 9);
        const x = q8_0Blocks(count, seed);
        const y = q8_0Blocks(count, seed + 1000);
        const { sum, magnitude } = exactDot(x, y, count);
        // Exact integer block sums, then float32 scaling and adding in 4 lanes.
        expect(Math.abs(rowDot(x, y, count) - sum), `seed ${seed}`).toBeLessThanOrEqual(
          1e-6 * magnitude + 1e-30,
        );
      }
    });

    it('at the extremes: weights and activations of -127 and 127 (pair sums of 32,258)', () => {
      for (const [w, a] of [
        [-127, -127],
        [-127, 127],
        [127, 127],
      ]) {
        const x = q8_0Blocks(3, 2);
        const y = q8_0Blocks(3, 3);
        for (let b = 0; b < 3; b++) {
          x.fill(w & 0xff, 34 * b + 2, 34 * b + 34);
          y.fill(a & 0xff, 34 * b + 2, 34 * b + 34);
        }
        const { sum, magnitude } = exactDot(x, y, 3);
        expect(Math.abs(rowDot(x, y, 3) - sum)).toBeLessThanOrEqual(1e-6 * magnitude);
      }
    });

    it("takes a weight of -128 (ggml's quantizer never writes one) as it is in one row, as -127 in a tile", () => {
      const x = q8_0Blocks(2, 4);
      const y = q8_0Blocks(2, 5);
      x.fill(0x80, 2, 34);
      const { sum, magnitude } = exactDot(x, y, 2);
      expect(Math.abs(rowDot(x, y, 2) - sum)).toBeLessThanOrEqual(1e-6 * magnitude);
      const heap = new Uint8Array(memory.buffer);
      for (let copy = 0; copy < 2; copy++) {
        heap.set(x, weightsAt + 68 * copy);
        heap.set(y, activationsAt + 68 * copy);
      }
      kernels.q8_0(64, resultAt, 4, weightsAt, 68, activationsAt, 68, 2);
      x.fill(0x81, 2, 34);
      expect(new DataView(memory.buffer).getFloat32(resultAt, true)).toBe(ggmlDot(x, y, 2));
    });

    it.each([2, 4])(
      "takes tiles of %i rows by as many columns (nrc), each product equal to ggml's to the bit",
      (nrc) => {
        for (const count of [1, 2, 5]) {
          const rows = Array.from({ length: nrc }, (_, r) => q8_0Blocks(count, 21 + r));
          const columns = Array.from({ length: nrc }, (_, c) => q8_0Blocks(count, 31 + c));
          const heap = new Uint8Array(memory.buffer);
          const rowBytes = 34 * count + 6;
          const columnBytes = 34 * count + 10;
          rows.forEach((row, r) => heap.set(row, weightsAt + r * rowBytes));
          columns.forEach((column, c) => heap.set(column, activationsAt + c * columnBytes));
          const bs = 8;
          kernels.q8_0(
            32 * count,
            resultAt,
            bs,
            weightsAt,
            rowBytes,
            activationsAt,
            columnBytes,
            nrc,
          );
          const got = new Float32Array(memory.buffer, resultAt, (nrc - 1) * bs + nrc);
          for (const [r, row] of rows.entries()) {
            for (const [c, column] of columns.entries()) {
              expect(got[c * bs + r], `${count} blocks, row ${r}, column ${c}`).toBe(
                ggmlDot(row, column, count),
              );
            }
          }
        }
      },
    );
  });
});
