import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  encodeGguf,
  decodeQ4_K,
  decodeQ6_K,
  encodeQ4_K,
  encodeQ6_K,
  encodeQ8_0,
  float32ToFloat16Bits,
  layoutGguf,
  writeGgufFile,
} from '../support/gguf-writer.js';
import type { GgufModel } from '../support/gguf-writer.js';
import {
  buildLfm2Vocabulary,
  ensureFixtures,
  fixtureModel,
  lfm2Model,
  lfm2TokenIds,
} from '../support/lfm2-fixtures.js';

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

function float16ToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

const tempDirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lmtab-writer-'));
  tempDirs.push(dir);
  return dir;
}
afterAll(async () => {
  for (const dir of tempDirs) await rm(dir, { recursive: true, force: true });
});

describe('float32ToFloat16Bits', () => {
  it('rounds to nearest even and handles the edges of half precision', () => {
    expect(float32ToFloat16Bits(1)).toBe(0x3c00);
    expect(float32ToFloat16Bits(-2)).toBe(0xc000);
    expect(float32ToFloat16Bits(0.1)).toBe(0x2e66);
    expect(float32ToFloat16Bits(65504)).toBe(0x7bff);
    expect(float32ToFloat16Bits(65520)).toBe(0x7c00);
    expect(float32ToFloat16Bits(-Infinity)).toBe(0xfc00);
    expect(float32ToFloat16Bits(NaN) & 0x7e00).toBe(0x7e00);
    expect(float32ToFloat16Bits(2 ** -24)).toBe(0x0001);
    expect(float32ToFloat16Bits(2 ** -26)).toBe(0x0000);
    expect(float32ToFloat16Bits(-0)).toBe(0x8000);
    expect(float32ToFloat16Bits(1 + 2 ** -11)).toBe(0x3c00);
    expect(float32ToFloat16Bits(1 + 3 * 2 ** -11)).toBe(0x3c02);
  });
});

describe('encodeQ8_0', () => {
  it('writes blocks of an f16 scale and 32 int8 values, as llama.cpp quantizes', () => {
    const values = new Float32Array(64);
    for (let i = 0; i < 32; i++) values[i] = (i - 16) / 10;
    const bytes = encodeQ8_0(values);
    expect(bytes.length).toBe(68);
    const view = new DataView(bytes.buffer);
    const scale = float16ToNumber(view.getUint16(0, true));
    expect(view.getUint16(0, true)).toBe(float32ToFloat16Bits(1.6 / 127));
    expect(view.getInt8(2)).toBe(-127);
    expect(view.getInt8(2 + 16)).toBe(0);
    expect(view.getInt8(2 + 31)).toBe(Math.round((1.5 * 127) / 1.6));
    for (let i = 0; i < 32; i++) {
      expect(Math.abs(view.getInt8(2 + i) * scale - values[i])).toBeLessThan(scale);
    }
    expect([...bytes.subarray(34)]).toEqual(new Array(34).fill(0));
  });

  it('rounds halves away from zero and rejects partial blocks', () => {
    const values = new Float32Array(32);
    values[0] = 127;
    values[1] = 2.5;
    values[2] = -2.5;
    const view = new DataView(encodeQ8_0(values).buffer);
    expect(view.getUint16(0, true)).toBe(0x3c00);
    expect([view.getInt8(2), view.getInt8(3), view.getInt8(4)]).toEqual([127, 3, -3]);
    expect(() => encodeQ8_0(new Float32Array(31))).toThrow(RangeError);
  });
});

describe('encodeQ4_K and encodeQ6_K', () => {
  const values = new Float32Array(512).map((_, i) => Math.sin(i * 0.37) * (1 + (i % 7)) - 0.5);
  const maxError = (decoded: Float64Array, from: Float32Array, group: number) => {
    let worst = 0;
    for (let i = 0; i < from.length; i++) {
      let amax = 0;
      const start = i - (i % group);
      for (let j = start; j < start + group; j++) amax = Math.max(amax, Math.abs(from[j]));
      worst = Math.max(worst, Math.abs(decoded[i] - from[i]) / amax);
    }
    return worst;
  };

  it('Q4_K: 144 bytes per 256 values, each within a step of 4 bits of its group', () => {
    const bytes = encodeQ4_K(values);
    expect(bytes.length).toBe(288);
    // A group spans at most 2 x its largest magnitude in 15 steps, plus 6-bit scale rounding.
    expect(maxError(decodeQ4_K(bytes), values, 32)).toBeLessThan(0.12);
  });

  it('Q6_K: 210 bytes per 256 values, each within a step of 6 bits of its group', () => {
    const bytes = encodeQ6_K(values);
    expect(bytes.length).toBe(420);
    expect(maxError(decodeQ6_K(bytes), values, 16)).toBeLessThan(0.04);
  });

  it('refuses lengths that are not whole blocks', () => {
    expect(() => encodeQ4_K(new Float32Array(255))).toThrow(RangeError);
    expect(() => encodeQ6_K(new Float32Array(32))).toThrow(RangeError);
  });
});

describe('GGUF layout', () => {
  const model = (alignment?: number): GgufModel => ({
    metadata: {
      'general.architecture': { type: 'string', value: 'test' },
      ...(alignment === undefined
        ? {}
        : { 'general.alignment': { type: 'uint32', value: alignment } }),
    },
    tensors: [
      { name: 'a', dims: [3], type: 'F32', data: { kind: 'values', values: [1, 2, 3] } },
      { name: 'b', dims: [32, 2], type: 'Q8_0', data: { kind: 'constant', value: 0.5 } },
      { name: 'c', dims: [5], type: 'F16', data: { kind: 'constant', value: 1 } },
    ],
  });

  it('writes the header byte for byte', () => {
    const bytes = encodeGguf({
      metadata: { k: { type: 'uint32', value: 7 } },
      tensors: [{ name: 't', dims: [2], type: 'F32', data: { kind: 'values', values: [1, -1] } }],
    });
    const u32 = (n: number): number[] => [n, 0, 0, 0];
    const u64 = (n: number): number[] => [...u32(n), 0, 0, 0, 0];
    const zeros = (n: number): number[] => new Array<number>(n).fill(0);
    expect([...bytes]).toEqual([
      ...[0x47, 0x47, 0x55, 0x46, ...u32(3), ...u64(1), ...u64(1)],
      ...[...u64(1), 0x6b, ...u32(4), ...u32(7)],
      ...[...u64(1), 0x74, ...u32(1), ...u64(2), ...u32(0), ...u64(0)],
      ...zeros(96 - 74),
      ...[0, 0, 0x80, 0x3f, 0, 0, 0x80, 0xbf],
      ...zeros(24),
    ]);
  });

  it.each([undefined, 64, 256])('aligns the data section and every tensor to %s', (alignment) => {
    const layout = layoutGguf(model(alignment));
    const step = alignment ?? 32;
    expect(layout.alignment).toBe(step);
    expect(layout.dataOffset % step).toBe(0);
    const third = step + Math.ceil(68 / step) * step;
    expect(layout.tensors.map((t) => t.offset)).toEqual([0, step, third]);
    expect(layout.tensors.map((t) => t.byteLength)).toEqual([12, 68, 10]);
    expect(layout.totalBytes).toBe(layout.dataOffset + third + step);
    const bytes = encodeGguf(model(alignment));
    expect(bytes.length).toBe(layout.totalBytes);
    const data = new DataView(bytes.buffer, layout.dataOffset);
    expect([data.getFloat32(0, true), data.getFloat32(8, true)]).toEqual([1, 3]);
    expect(
      bytes.subarray(layout.dataOffset + 12, layout.dataOffset + step).every((b) => b === 0),
    ).toBe(true);
    expect(data.getInt8(step + 2)).toBe(127);
    expect(data.getUint16(third + 8, true)).toBe(0x3c00);
  });

  it('rejects bad alignments, bad values and Q8_0 rows that are not whole blocks', () => {
    expect(() => layoutGguf(model(48))).toThrow('power of two');
    const bad = (value: number): GgufModel => ({
      metadata: { n: { type: 'uint32', value } },
      tensors: [],
    });
    expect(() => layoutGguf(bad(-1))).toThrow('n: -1 is not a valid uint32');
    expect(() => layoutGguf(bad(1.5))).toThrow(RangeError);
    expect(() =>
      layoutGguf({
        metadata: {},
        tensors: [{ name: 'q', dims: [16, 2], type: 'Q8_0', data: { kind: 'constant', value: 0 } }],
      }),
    ).toThrow('multiple of 32');
  });
});

describe('determinism', () => {
  it('writes byte-identical tiny fixtures for the same seed, different ones for another', () => {
    const first = encodeGguf(lfm2Model());
    expect(sha256(encodeGguf(lfm2Model()))).toBe(sha256(first));
    expect(sha256(first)).toBe('264b5996cf27cdd7b10d3f1164faaa2e8cad9de69982de93216b73524fbfb42e');
    expect(sha256(encodeGguf(lfm2Model(), { seed: 1 }))).not.toBe(sha256(first));
  });

  it('draws weights from N(0, 0.02) and sets norm weights to 1', () => {
    const bytes = encodeGguf({
      metadata: {},
      tensors: [{ name: 'w', dims: [100000], type: 'F32', data: { kind: 'normal', std: 0.02 } }],
    });
    const values = new Float32Array(bytes.buffer.slice(32, 32 + 400000));
    const mean = values.reduce((s, v) => s + v, 0) / values.length;
    const std = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / values.length);
    expect(Math.abs(mean)).toBeLessThan(0.0005);
    expect(std).toBeCloseTo(0.02, 3);
    const tiny = lfm2Model();
    const norms = tiny.tensors.filter((t) => t.name.includes('norm'));
    expect(norms.length).toBe(13);
    expect(norms.every((t) => t.type === 'F32' && t.data.kind === 'constant')).toBe(true);
  });

  it('streams to a file exactly the bytes it encodes in memory, across many chunks', async () => {
    const model: GgufModel = {
      metadata: { 'general.name': { type: 'string', value: 'chunks' } },
      tensors: [
        { name: 'q', dims: [1024, 600], type: 'Q8_0', data: { kind: 'normal', std: 0.02 } },
        { name: 'h', dims: [333, 1000], type: 'F16', data: { kind: 'normal', std: 1 } },
      ],
    };
    const path = join(await tempDir(), 'chunks.gguf');
    const size = await writeGgufFile(path, model);
    const onDisk = await readFile(path);
    expect(size).toBe(layoutGguf(model).totalBytes);
    expect(sha256(onDisk)).toBe(sha256(encodeGguf(model)));
  });
});

describe('LFM2 fixtures', () => {
  it('lays out the vocabulary as GGUF-FIXTURES.md says', () => {
    const { tokens, tokenTypes, merges } = buildLfm2Vocabulary(512);
    expect(tokens).toHaveLength(512);
    expect(tokens.slice(0, 8)).toEqual([
      '<|pad|>',
      '<|startoftext|>',
      '<|endoftext|>',
      '<|fim_pre|>',
      '<|fim_mid|>',
      '<|fim_suf|>',
      '<|im_start|>',
      '<|im_end|>',
    ]);
    expect(tokens[lfm2TokenIds.image]).toBe('<image>');
    expect(tokens[13]).toBe('<|img_thumbnail|>');
    expect(tokens[14]).toBe('<|img_row_1_col_1|>');
    expect(tokens[49]).toBe('<|img_row_6_col_6|>');
    expect(tokens.slice(50, 56)).toEqual([
      '<|tool_call_start|>',
      '<|tool_call_end|>',
      '<|tool_response_start|>',
      '<|tool_response_end|>',
      '<think>',
      '</think>',
    ]);
    expect(tokenTypes.slice(0, 56).every((t) => t === 3)).toBe(true);
    // Bytes in GPT-2's mapping: space is 'Ġ', newline 'Ċ', printable ASCII is itself.
    expect([tokens[56 + 0x20], tokens[56 + 0x0a], tokens[56 + 0x41], tokens[56 + 0xad]]).toEqual([
      'Ġ',
      'Ċ',
      'A',
      'Ń',
    ]);
    expect(new Set(tokens.slice(56, 312)).size).toBe(256);
    expect(merges[0]).toBe('e e');
    expect(tokens[312]).toBe('ee');
    expect(tokens[312 + merges.length - 1]).toBe(merges[merges.length - 1].replace(' ', ''));
    expect(tokenTypes.slice(56, 312 + merges.length).every((t) => t === 1)).toBe(true);
    expect(tokenTypes.slice(312 + merges.length).every((t) => t === 5)).toBe(true);
    expect(new Set(tokens).size).toBe(512);
  });

  it('fills the vocabulary with space-led words, each built by one merge, when asked', () => {
    const { tokens, tokenTypes, merges } = buildLfm2Vocabulary(512, 'words');
    expect(tokens).toHaveLength(512);
    expect(tokens.slice(456, 459)).toEqual(['Ġb', 'Ġc', 'Ġf']);
    expect(tokens[456 + 14]).toBe('Ġbb');
    expect(merges.slice(144, 146)).toEqual(['Ġ b', 'Ġ c']);
    expect(merges).toHaveLength(144 + 56);
    expect(tokenTypes.every((t) => t !== 5)).toBe(true);
    const known = new Set(tokens);
    for (const merge of merges.slice(144)) {
      const [left, right] = merge.split(' ');
      expect(known.has(left) && known.has(right) && known.has(left + right)).toBe(true);
    }
    expect(new Set(tokens).size).toBe(512);
  });

  it('writes the tiny fixtures once and rewrites only stale ones', async () => {
    const dir = await tempDir();
    const paths = await ensureFixtures(dir);
    expect(Object.values(paths).map((p) => p.slice(dir.length + 1))).toEqual([
      'tiny-lfm2.gguf',
      'tiny-lfm2moe.gguf',
      'tiny-lfm2-vl.gguf',
      'mmproj-tiny-lfm2-vl.gguf',
      'tiny-lfm2-thinking.gguf',
      'tiny-lfm2-heads32.gguf',
      'tiny-lfm2-q4_k_m.gguf',
    ]);
    const before = await stat(paths.lfm2moe);
    await writeFile(paths.lfm2, 'stale');
    await ensureFixtures(dir);
    expect((await stat(paths.lfm2moe)).mtimeMs).toBe(before.mtimeMs);
    expect(sha256(await readFile(paths.lfm2))).toBe(sha256(encodeGguf(fixtureModel('lfm2'))));
    const vl = await readFile(paths.lfm2Vl);
    expect(vl.includes('tiny-lfm2-vl')).toBe(true);
  });
});

describe('writeGgufFile', () => {
  it('leaves long runs of zeros as holes of a sparse file that reads back byte for byte', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lmtab-sparse-'));
    try {
      // The tiny shape with zero weights: its matrices are runs of zero bytes past the hole size.
      const model = lfm2Model({ weights: 'zeros', type: 'Q8_0' });
      const path = join(dir, 'zeros.gguf');
      const bytes = await writeGgufFile(path, model);
      const expected = encodeGguf(model);
      expect(bytes).toBe(expected.length);
      expect(sha256(await readFile(path))).toBe(sha256(expected));
      const info = await stat(path);
      expect(info.size).toBe(expected.length);
      // Fewer blocks on disk than its length: the zeros were not written.
      expect(info.blocks * 512).toBeLessThan(info.size);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
