import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { halfBitsToNumber } from '../support/gguf-writer.js';
import { randomBytes, randomHalf } from '../support/kernel-inputs.js';

// lmtab's kernels built for wasm64 (lmtab-kernels64.wasm, which go into wllama's memory64 build:
// src/engine/builds/memory64-kernels.ts) against the wasm32 ones the CPU build runs (lmtab-kernels.wasm,
// checked against ggml's definitions in wasm/kernels/k-quants.test.ts): the same inputs give the
// same floats, bit for bit, through every export and tile. Here because Node 20 cannot compile a
// wasm64 module on a shared 64-bit memory; Node 24 can.

const prebuilt = new URL('../../wasm/prebuilt/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('manifest.json', prebuilt), 'utf8')) as {
  kernels: { f16Table: number };
};

type Exports = Record<string, (...args: (number | bigint)[]) => void>;

/** One build of the kernels on a memory of its own; addresses are numbers on both. */
function instantiate(file: string, wide: boolean) {
  const memory = new WebAssembly.Memory({
    initial: wide ? 128n : 128,
    maximum: wide ? 262144n : 65536,
    shared: true,
    ...(wide ? { address: 'i64' } : {}),
  } as unknown as WebAssembly.MemoryDescriptor);
  const module = new WebAssembly.Module(readFileSync(new URL(file, prebuilt)));
  const exports = new WebAssembly.Instance(module, { env: { memory } }).exports as Exports;
  // The wasm32 build's Q8_0 kernel reads ggml's table of halves at the engine's address.
  if (!wide) {
    const table = new Float32Array(memory.buffer, manifest.kernels.f16Table, 1 << 16);
    for (let h = 0; h < 1 << 16; h++) table[h] = halfBitsToNumber(h);
  }
  const address = (n: number) => (wide ? BigInt(n) : n);
  return {
    bytes: () => new Uint8Array(memory.buffer),
    /** vec_dot(n, s, bs, vx, bx, vy, by, nrc): the pointer and size arguments widened on wasm64. */
    vecDot(
      name: string,
      n: number,
      s: number,
      bs: number,
      vx: number,
      bx: number,
      vy: number,
      by: number,
      nrc: number,
    ) {
      exports[name]!(
        n,
        address(s),
        address(bs),
        address(vx),
        address(bx),
        address(vy),
        address(by),
        nrc,
      );
    },
    toFloat(x: number, y: number, k: number) {
      exports.lmtab_dequantize_row_q8_0!(address(x), address(y), BigInt(k));
    },
  };
}

const narrow = instantiate('lmtab-kernels.wasm', false);
const wide = instantiate('lmtab-kernels64.wasm', true);

/** A half between 2^-10 and 2^1 with either sign, or a subnormal one, written little-endian. */
function writeHalf(bytes: Uint8Array, at: number, seed: number) {
  const [a, b] = randomBytes(2, seed);
  const half = seed % 7 === 0 ? ((b! & 0x80) << 8) | (a! | ((b! & 3) << 8)) : randomHalf(a!, b!);
  bytes[at] = half & 0xff;
  bytes[at + 1] = half >> 8;
}

const blockBytes = { q8_0: 34, q4_K: 144, q6_K: 210, q8_K: 292 };

/** `count` blocks of a type at random, with valid half scales where the type has them. */
function blocks(type: keyof typeof blockBytes, count: number, seed: number): Uint8Array {
  const size = blockBytes[type];
  const bytes = randomBytes(size * count, seed);
  const view = new DataView(bytes.buffer);
  for (let b = 0; b < count; b++) {
    const base = b * size;
    if (type === 'q8_0') writeHalf(bytes, base, seed + b);
    if (type === 'q4_K') {
      writeHalf(bytes, base, seed + b);
      writeHalf(bytes, base + 2, seed + 7 * b + 1);
    }
    if (type === 'q6_K') writeHalf(bytes, base + 208, seed + b);
    if (type === 'q8_K') {
      view.setFloat32(base, 0.0123 * (b + 1), true);
      for (let g = 0; g < 16; g++) {
        let sum = 0;
        for (let i = 0; i < 16; i++) sum += (bytes[base + 4 + 16 * g + i]! << 24) >> 24;
        view.setInt16(base + 4 + 256 + 2 * g, sum, true);
      }
    }
  }
  return bytes;
}

// Inputs well past the wasm32 build's f16 table (at manifest.kernels.f16Table, 256 KiB long).
const weightsAt = 1 << 21;
const activationsAt = 1 << 22;
const resultAt = 1 << 20;

function results(memory: Uint8Array, count: number): number[] {
  return [...new Uint32Array(memory.buffer.slice(resultAt, resultAt + 4 * count))];
}

describe("lmtab's wasm64 kernels give the wasm32 kernels' floats, bit for bit", () => {
  const cases = [
    { name: 'lmtab_vec_dot_q8_0_q8_0', x: 'q8_0', y: 'q8_0', perBlock: 32 },
    { name: 'lmtab_vec_dot_q4_K_q8_K', x: 'q4_K', y: 'q8_K', perBlock: 256 },
    { name: 'lmtab_vec_dot_q6_K_q8_K', x: 'q6_K', y: 'q8_K', perBlock: 256 },
  ] as const;
  for (const { name, x, y, perBlock } of cases) {
    for (const nrc of [1, 2, 4]) {
      test(`${name}, ${nrc === 1 ? 'one row' : `tiles of ${nrc} by ${nrc}`}`, () => {
        const count = 8;
        const rowBytes = blockBytes[x] * count;
        const columnBytes = blockBytes[y] * count;
        const weights = blocks(x, count * nrc, 100 + nrc);
        const activations = blocks(y, count * nrc, 200 + nrc);
        const outputs = [narrow, wide].map((build) => {
          const memory = build.bytes();
          memory.set(weights, weightsAt);
          memory.set(activations, activationsAt);
          memory.fill(0, resultAt, resultAt + 64);
          build.vecDot(
            name,
            count * perBlock,
            resultAt,
            nrc,
            weightsAt,
            rowBytes,
            activationsAt,
            columnBytes,
            nrc,
          );
          return results(build.bytes(), nrc * nrc);
        });
        expect(outputs[0]!.some((bits) => bits !== 0)).toBe(true);
        expect(outputs[1]).toEqual(outputs[0]);
      });
    }
  }

  test('lmtab_dequantize_row_q8_0', () => {
    const count = 16;
    const weights = blocks('q8_0', count, 300);
    const outputs = [narrow, wide].map((build) => {
      const memory = build.bytes();
      memory.set(weights, weightsAt);
      build.toFloat(weightsAt, resultAt, count * 32);
      return results(build.bytes(), count * 32);
    });
    expect(outputs[0]!.some((bits) => bits !== 0)).toBe(true);
    expect(outputs[1]).toEqual(outputs[0]);
  });
});
