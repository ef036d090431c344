import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/** A typed GGUF metadata value (the subset of GGUF value types the fixtures need). */
export type GgufValue =
  | { type: 'uint16' | 'uint32' | 'int32' | 'float32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'array'; itemType: 'uint32' | 'int32' | 'float32'; value: readonly number[] }
  | { type: 'array'; itemType: 'bool'; value: readonly boolean[] }
  | { type: 'array'; itemType: 'string'; value: readonly string[] };

/** Tensor data types the writer can encode. */
export type GgmlTensorType = 'F32' | 'F16' | 'Q8_0' | 'Q4_K' | 'Q6_K';

/** Where a tensor's values come from; generated on demand, chunk by chunk, while writing. */
export type GgufTensorData =
  | {
      /** Gaussian noise from the writer's seeded PRNG (seeded per tensor name). */
      kind: 'normal';
      /** Standard deviation. */
      std: number;
      /** Mean; default 0. */
      mean?: number;
    }
  | { /** Every element the same (norm weights 1, biases 0). */ kind: 'constant'; value: number }
  | { /** Explicit values, one per element. */ kind: 'values'; values: ArrayLike<number> };

/** One tensor of a GGUF file. */
export interface GgufTensor {
  /** Tensor name, e.g. `blk.0.attn_q.weight`. */
  name: string;
  /** `ne`, innermost dimension first. */
  dims: readonly number[];
  /** Encoding of the data. */
  type: GgmlTensorType;
  /** Source of the values, generated while writing. */
  data: GgufTensorData;
}

/** Everything a GGUF file holds, with tensor data described rather than materialized. */
export interface GgufModel {
  /** Metadata in file order; `general.alignment` (uint32) sets the alignment, default 32. */
  metadata: Readonly<Record<string, GgufValue>>;
  /** Tensors in file order. */
  tensors: readonly GgufTensor[];
}

/** Options of the GGUF writer functions. */
export interface GgufWriteOptions {
  /** Seed of the PRNG behind `normal` tensor data; default 0x6c6d7461 (same seed, same bytes). */
  seed?: number;
}

/** Where each part of a GGUF file lands. */
export interface GgufLayout {
  /** Header, metadata and tensor infos, padded up to the data section. */
  header: Uint8Array<ArrayBuffer>;
  /** Alignment of the data section and of every tensor, in bytes. */
  alignment: number;
  /** Absolute byte offset of the data section (equals `header.length`). */
  dataOffset: number;
  /** Offsets relative to the data section, and encoded sizes without padding. */
  tensors: { name: string; offset: number; byteLength: number }[];
  /** Size of the whole file in bytes. */
  totalBytes: number;
}

const valueTypeIds = {
  uint16: 2,
  uint32: 4,
  int32: 5,
  float32: 6,
  bool: 7,
  string: 8,
  array: 9,
} as const;

const tensorTypeIds: Record<GgmlTensorType, number> = {
  F32: 0,
  F16: 1,
  Q8_0: 8,
  Q4_K: 12,
  Q6_K: 14,
};

/** Values and bytes of one block of each quantized type. */
const blockShapes = { Q8_0: [32, 34], Q4_K: [256, 144], Q6_K: [256, 210] } as const;

const defaultSeed = 0x6c6d7461;

const encoder = new TextEncoder();

/** Elements generated per step: a multiple of every block size so blocks never straddle steps. */
const chunkElements = 1 << 18;

/** Bytes a tensor's data occupies, unpadded. */
export function tensorByteLength(type: GgmlTensorType, elements: number): number {
  if (type === 'F32') return elements * 4;
  if (type === 'F16') return elements * 2;
  const [values, bytes] = blockShapes[type];
  return (elements / values) * bytes;
}

/** Rounds a float to IEEE half precision (round to nearest even) and returns its 16 bits. */
export function float32ToFloat16Bits(value: number): number {
  f32Scratch[0] = value;
  const bits = u32Scratch[0];
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  let mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa !== 0 ? 0x200 : 0);
  const e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - e;
    let half = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    if (rest > halfway || (rest === halfway && (half & 1) === 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  // A carry out of the mantissa correctly bumps the exponent (up to infinity).
  if (rest > 0x1000 || (rest === 0x1000 && (half & 1) === 1)) half++;
  return sign | half;
}

const f32Scratch = new Float32Array(1);
const u32Scratch = new Uint32Array(f32Scratch.buffer);

/**
 * Checks that `values` are whole blocks of `type`, then has `encodeBlock` write each block's values
 * at its byte offset in `out` (or in new bytes of the right length), and returns the bytes.
 */
function encodeBlocks(
  type: keyof typeof blockShapes,
  values: Float32Array,
  out: Uint8Array | undefined,
  encodeBlock: (block: Float32Array, bytes: Uint8Array, at: number) => void,
): Uint8Array {
  const [size, blockBytes] = blockShapes[type];
  if (values.length % size !== 0) {
    throw new RangeError(`${type} needs a multiple of ${size} values, got ${values.length}`);
  }
  const bytes = out ?? new Uint8Array((values.length / size) * blockBytes);
  for (let b = 0; b < values.length / size; b++) {
    encodeBlock(values.subarray(b * size, b * size + size), bytes, b * blockBytes);
  }
  return bytes;
}

/** Quantizes values (a multiple of 32) to Q8_0 blocks as llama.cpp's reference quantizer does. */
export function encodeQ8_0(values: Float32Array, out?: Uint8Array): Uint8Array {
  return encodeBlocks('Q8_0', values, out, (block, bytes, at) => {
    let amax = 0;
    for (let j = 0; j < 32; j++) {
      const x = block[j];
      if (x > amax) amax = x;
      else if (-x > amax) amax = -x;
    }
    const d = amax / 127;
    const id = d !== 0 ? 1 / d : 0;
    const scale = float32ToFloat16Bits(d);
    bytes[at] = scale & 0xff;
    bytes[at + 1] = scale >>> 8;
    for (let j = 0; j < 32; j++) {
      // C's roundf: halves away from zero (truncating |x| + 0.5 is exact for |x| <= 127).
      const x = block[j] * id;
      bytes[at + 2 + j] = x < 0 ? (x - 0.5) | 0 : (x + 0.5) | 0;
    }
  });
}

/** Rounds half away from zero, as C's roundf. */
function roundHalfAway(x: number): number {
  return x < 0 ? -Math.floor(-x + 0.5) : Math.floor(x + 0.5);
}

function setHalf(bytes: Uint8Array, at: number, value: number): number {
  const bits = float32ToFloat16Bits(value);
  bytes[at] = bits & 0xff;
  bytes[at + 1] = bits >>> 8;
  return halfBitsToNumber(bits);
}

/** The value of an IEEE half from its 16 bits. */
export function halfBitsToNumber(bits: number): number {
  const exponent = (bits >> 10) & 0x1f;
  if (exponent === 0x1f) return bits & 0x3ff ? NaN : bits & 0x8000 ? -Infinity : Infinity;
  const magnitude =
    exponent === 0 ? (bits & 0x3ff) * 2 ** -24 : (1 + (bits & 0x3ff) / 1024) * 2 ** (exponent - 15);
  return bits & 0x8000 ? -magnitude : magnitude;
}

/**
 * Quantizes values (a multiple of 256) to Q4_K blocks: 8 groups of 32, each value
 * `d * scale * q - dmin * min` with q in [0, 15] and 6-bit scales and mins (ggml's layout; a plain
 * min/max fit, not llama.cpp's search, which tests do not need).
 */
export function encodeQ4_K(values: Float32Array, out?: Uint8Array): Uint8Array {
  return encodeBlocks('Q4_K', values, out, (block, bytes, at) => {
    const steps: number[] = [];
    const offsets: number[] = [];
    for (let j = 0; j < 8; j++) {
      const group = block.subarray(32 * j, 32 * j + 32);
      const offset = Math.max(0, -Math.min(...group));
      offsets.push(offset);
      steps.push((Math.max(...group) + offset) / 15);
    }
    const d = setHalf(bytes, at, Math.max(...steps) / 63);
    const dmin = setHalf(bytes, at + 2, Math.max(...offsets) / 63);
    const scales = steps.map((step) => (d > 0 ? Math.min(63, roundHalfAway(step / d)) : 0));
    const mins = offsets.map((offset) =>
      dmin > 0 ? Math.min(63, roundHalfAway(offset / dmin)) : 0,
    );
    for (let j = 0; j < 4; j++) {
      bytes[at + 4 + j] = scales[j] | ((scales[j + 4] >> 4) << 6);
      bytes[at + 8 + j] = mins[j] | ((mins[j + 4] >> 4) << 6);
      bytes[at + 12 + j] = (scales[j + 4] & 0xf) | ((mins[j + 4] & 0xf) << 4);
    }
    const q = (i: number) => {
      const j = i >> 5;
      const step = d * scales[j];
      return step > 0
        ? Math.min(15, Math.max(0, roundHalfAway((block[i] + dmin * mins[j]) / step)))
        : 0;
    };
    for (let pair = 0; pair < 4; pair++) {
      for (let l = 0; l < 32; l++) {
        bytes[at + 16 + 32 * pair + l] = q(64 * pair + l) | (q(64 * pair + 32 + l) << 4);
      }
    }
  });
}

/**
 * Quantizes values (a multiple of 256) to Q6_K blocks: 16 groups of 16, each value
 * `d * scale * (q - 32)` with q in [0, 63] and a signed 8-bit scale per group (ggml's layout).
 */
export function encodeQ6_K(values: Float32Array, out?: Uint8Array): Uint8Array {
  return encodeBlocks('Q6_K', values, out, (block, bytes, at) => {
    const steps: number[] = [];
    for (let g = 0; g < 16; g++) {
      let amax = 0;
      for (let i = 16 * g; i < 16 * g + 16; i++) amax = Math.max(amax, Math.abs(block[i]));
      steps.push(amax / 31);
    }
    const d = setHalf(bytes, at + 208, Math.max(...steps) / 127);
    const scales = steps.map((step) => (d > 0 ? Math.min(127, roundHalfAway(step / d)) : 0));
    scales.forEach((scale, g) => (bytes[at + 192 + g] = scale));
    const q = (i: number) => {
      const step = d * scales[i >> 4];
      return step > 0 ? Math.min(63, Math.max(0, roundHalfAway(block[i] / step) + 32)) : 32;
    };
    for (let half = 0; half < 2; half++) {
      const base = 128 * half;
      for (let l = 0; l < 32; l++) {
        const [q0, q1, q2, q3] = [
          q(base + l),
          q(base + l + 32),
          q(base + l + 64),
          q(base + l + 96),
        ];
        bytes[at + 64 * half + l] = (q0 & 0xf) | ((q2 & 0xf) << 4);
        bytes[at + 64 * half + l + 32] = (q1 & 0xf) | ((q3 & 0xf) << 4);
        bytes[at + 128 + 32 * half + l] =
          (q0 >> 4) | ((q1 >> 4) << 2) | ((q2 >> 4) << 4) | ((q3 >> 4) << 6);
      }
    }
  });
}

/** Q4_K blocks back to values, by ggml's definition (dequantize_row_q4_K), in doubles. */
export function decodeQ4_K(bytes: Uint8Array): Float64Array {
  const values = new Float64Array((bytes.length / 144) * 256);
  for (let b = 0; b < bytes.length / 144; b++) {
    const at = b * 144;
    const d = halfBitsToNumber(bytes[at] | (bytes[at + 1] << 8));
    const dmin = halfBitsToNumber(bytes[at + 2] | (bytes[at + 3] << 8));
    const packed = bytes.subarray(at + 4, at + 16);
    for (let j = 0; j < 8; j++) {
      const scale = j < 4 ? packed[j] & 63 : (packed[j + 4] & 0xf) | ((packed[j - 4] >> 6) << 4);
      const min = j < 4 ? packed[j + 4] & 63 : (packed[j + 4] >> 4) | ((packed[j] >> 6) << 4);
      for (let l = 0; l < 32; l++) {
        const byte = bytes[at + 16 + 32 * (j >> 1) + l];
        const q = j % 2 === 0 ? byte & 0xf : byte >> 4;
        values[b * 256 + 32 * j + l] = d * scale * q - dmin * min;
      }
    }
  }
  return values;
}

/** Q6_K blocks back to values, by ggml's definition (dequantize_row_q6_K), in doubles. */
export function decodeQ6_K(bytes: Uint8Array): Float64Array {
  const values = new Float64Array((bytes.length / 210) * 256);
  for (let b = 0; b < bytes.length / 210; b++) {
    const at = b * 210;
    const d = halfBitsToNumber(bytes[at + 208] | (bytes[at + 209] << 8));
    for (let half = 0; half < 2; half++) {
      for (let l = 0; l < 32; l++) {
        const low = [bytes[at + 64 * half + l], bytes[at + 64 * half + l + 32]];
        const high = bytes[at + 128 + 32 * half + l];
        const qs = [
          (low[0] & 0xf) | ((high & 3) << 4),
          (low[1] & 0xf) | (((high >> 2) & 3) << 4),
          (low[0] >> 4) | (((high >> 4) & 3) << 4),
          (low[1] >> 4) | (((high >> 6) & 3) << 4),
        ];
        qs.forEach((q, k) => {
          const i = 128 * half + l + 32 * k;
          const scale = (bytes[at + 192 + (i >> 4)] << 24) >> 24;
          values[b * 256 + i] = d * scale * (q - 32);
        });
      }
    }
  }
  return values;
}

/** Computes the header bytes and where every tensor goes, without generating tensor data. */
export function layoutGguf(model: GgufModel): GgufLayout {
  const alignmentValue = model.metadata['general.alignment'];
  const alignment = alignmentValue?.type === 'uint32' ? alignmentValue.value : 32;
  if (alignment <= 0 || (alignment & (alignment - 1)) !== 0) {
    throw new RangeError(`general.alignment must be a power of two, got ${alignment}`);
  }
  const out = new ByteWriter();
  out.bytes(encoder.encode('GGUF'));
  out.u32(3);
  out.u64(model.tensors.length);
  const entries = Object.entries(model.metadata);
  out.u64(entries.length);
  for (const [key, value] of entries) {
    out.string(key);
    writeValue(out, key, value);
  }
  const tensors: GgufLayout['tensors'] = [];
  let offset = 0;
  const names = new Set<string>();
  for (const tensor of model.tensors) {
    if (names.has(tensor.name)) throw new Error(`duplicate tensor name ${tensor.name}`);
    names.add(tensor.name);
    const elements = elementCount(tensor);
    if (tensor.type in blockShapes) {
      const [block] = blockShapes[tensor.type as keyof typeof blockShapes];
      if (tensor.dims[0] % block !== 0) {
        throw new RangeError(
          `${tensor.name}: ${tensor.type} rows need a multiple of ${block} values`,
        );
      }
    }
    out.string(tensor.name);
    out.u32(tensor.dims.length);
    for (const n of tensor.dims) out.u64(n);
    out.u32(tensorTypeIds[tensor.type]);
    out.u64(offset);
    const byteLength = tensorByteLength(tensor.type, elements);
    tensors.push({ name: tensor.name, offset, byteLength });
    offset = alignUp(offset + byteLength, alignment);
  }
  out.zeros(alignUp(out.length, alignment) - out.length);
  const header = out.finish();
  return {
    header,
    alignment,
    dataOffset: header.length,
    tensors,
    totalBytes: header.length + offset,
  };
}

/** Yields the file's bytes in order: header, then each tensor's data generated on demand. */
export function* ggufChunks(
  model: GgufModel,
  options: GgufWriteOptions = {},
): Generator<Uint8Array> {
  const layout = layoutGguf(model);
  const seed = options.seed ?? defaultSeed;
  yield layout.header;
  for (const [i, tensor] of model.tensors.entries()) {
    const { byteLength } = layout.tensors[i];
    yield* tensorChunks(tensor, seed);
    const padding = alignUp(byteLength, layout.alignment) - byteLength;
    if (padding > 0) yield new Uint8Array(padding);
  }
}

/**
 * Yields the data bytes of the model's tensor `index` (no padding), the same bytes
 * {@link ggufChunks} yields for it: to write tensors apart, e.g. in parallel, at the offsets of
 * {@link layoutGguf}.
 */
export function* ggufTensorChunks(
  model: GgufModel,
  index: number,
  options: GgufWriteOptions = {},
): Generator<Uint8Array> {
  const tensor = model.tensors[index];
  if (!tensor) throw new RangeError(`tensor ${index}: the model has ${model.tensors.length}`);
  yield* tensorChunks(tensor, options.seed ?? defaultSeed);
}

/** Encodes a whole GGUF file in memory; for tiny files only. */
export function encodeGguf(
  model: GgufModel,
  options: GgufWriteOptions = {},
): Uint8Array<ArrayBuffer> {
  const { totalBytes } = layoutGguf(model);
  const out = new Uint8Array(totalBytes);
  let at = 0;
  for (const chunk of ggufChunks(model, options)) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** Chunks of zeros at least this long are skipped (a hole), not written. */
const holeBytes = 1 << 12;
let zeroBlock = new Uint8Array(0);

/** Whether `chunk` is all zero bytes (memcmp against a block of zeros). */
function allZero(chunk: Uint8Array): boolean {
  if (zeroBlock.length < chunk.length) zeroBlock = new Uint8Array(chunk.length);
  return Buffer.compare(chunk, zeroBlock.subarray(0, chunk.length)) === 0;
}

/**
 * Streams a GGUF file to disk (through a temporary file renamed into place); resolves to its size.
 * Long runs of zeros (the `zeros` weights of the real-size fixtures) are left as holes of a sparse
 * file: they read back as zeros, and a 4.7 GB file is written in seconds, not minutes.
 */
export async function writeGgufFile(
  path: string,
  model: GgufModel,
  options: GgufWriteOptions = {},
): Promise<number> {
  const temporary = `${path}.${process.pid}-${Math.random().toString(36).slice(2)}.partial`;
  await mkdir(dirname(path), { recursive: true });
  const file = await open(temporary, 'w');
  let bytes = 0;
  try {
    // Small header and padding chunks are batched so the disk sees few, large writes.
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      if (pendingBytes > 0) await file.writev(pending, bytes);
      bytes += pendingBytes;
      pending = [];
      pendingBytes = 0;
    };
    for (const chunk of ggufChunks(model, options)) {
      if (chunk.length >= holeBytes && allZero(chunk)) {
        await flush();
        bytes += chunk.length;
        continue;
      }
      pending.push(chunk.slice());
      pendingBytes += chunk.length;
      if (pendingBytes >= 1 << 22) await flush();
    }
    await flush();
    // A file that ends in a hole gets its length here.
    await file.truncate(bytes);
    await file.close();
    await rename(temporary, path);
    return bytes;
  } catch (error) {
    await file.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Number of elements of a tensor. */
export function elementCount(tensor: Pick<GgufTensor, 'dims'>): number {
  return tensor.dims.reduce((product, n) => product * n, 1);
}

function* tensorChunks(tensor: GgufTensor, seed: number): Generator<Uint8Array> {
  const total = elementCount(tensor);
  const { data } = tensor;
  if (data.kind === 'values' && data.values.length !== total) {
    throw new RangeError(`${tensor.name}: ${data.values.length} values for ${total} elements`);
  }
  const random = new NormalStream(mixSeed(seed, tensor.name));
  const values = new Float32Array(Math.min(chunkElements, total));
  const bytes = new Uint8Array(tensorByteLength(tensor.type, values.length));
  const view = new DataView(bytes.buffer);
  // A constant's full chunks encode to the same bytes: encode once (zero-filled real-size files).
  let encodedFullChunk = false;
  for (let start = 0; start < total; start += chunkElements) {
    const count = Math.min(chunkElements, total - start);
    if (data.kind === 'constant' && encodedFullChunk && count === chunkElements) {
      yield bytes.subarray(0, tensorByteLength(tensor.type, count));
      continue;
    }
    encodedFullChunk = data.kind === 'constant' && count === chunkElements;
    const chunk = values.subarray(0, count);
    if (data.kind === 'constant') chunk.fill(data.value);
    else if (data.kind === 'values') {
      for (let j = 0; j < count; j++) chunk[j] = data.values[start + j];
    } else random.fill(chunk, data.mean ?? 0, data.std);
    const size = tensorByteLength(tensor.type, count);
    if (tensor.type === 'Q8_0') encodeQ8_0(chunk, bytes.subarray(0, size));
    else if (tensor.type === 'Q4_K') encodeQ4_K(chunk, bytes.subarray(0, size));
    else if (tensor.type === 'Q6_K') encodeQ6_K(chunk, bytes.subarray(0, size));
    else if (tensor.type === 'F32' && littleEndian)
      new Float32Array(bytes.buffer, 0, count).set(chunk);
    else if (tensor.type === 'F32') {
      for (let j = 0; j < count; j++) view.setFloat32(j * 4, chunk[j], true);
    } else {
      for (let j = 0; j < count; j++) view.setUint16(j * 2, float32ToFloat16Bits(chunk[j]), true);
    }
    // Consumers copy before the next step overwrites the buffer.
    yield bytes.subarray(0, size);
  }
}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** FNV-1a over the tensor name, mixed with the seed: each tensor gets its own stream. */
function mixSeed(seed: number, name: string): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** Gaussian samples (Marsaglia's polar method) from an sfc32 stream: fast enough for 1e9 values. */
class NormalStream {
  private a = 0x9e3779b9;
  private b = 0x243f6a88;
  private c = 0xb7e15162;
  private d: number;
  private spare = 0;
  private hasSpare = false;

  constructor(seed: number) {
    this.d = seed >>> 0;
    for (let i = 0; i < 12; i++) this.next();
  }

  /** Uniform in [-1, 1). */
  private next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (((this.c << 21) | (this.c >>> 11)) + t) | 0;
    return t / 2147483648;
  }

  fill(out: Float32Array, mean: number, std: number): void {
    let j = 0;
    if (this.hasSpare && out.length > 0) {
      out[j++] = mean + std * this.spare;
      this.hasSpare = false;
    }
    while (j < out.length) {
      let u: number;
      let v: number;
      let s: number;
      do {
        u = this.next();
        v = this.next();
        s = u * u + v * v;
      } while (s >= 1 || s === 0);
      const f = Math.sqrt((-2 * Math.log(s)) / s);
      out[j++] = mean + std * u * f;
      if (j < out.length) out[j++] = mean + std * v * f;
      else {
        this.spare = v * f;
        this.hasSpare = true;
      }
    }
  }
}

function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}

function writeValue(out: ByteWriter, key: string, value: GgufValue): void {
  out.u32(valueTypeIds[value.type]);
  if (value.type === 'array') {
    out.u32(valueTypeIds[value.itemType]);
    out.u64(value.value.length);
    for (const item of value.value) writeScalar(out, key, value.itemType, item);
  } else writeScalar(out, key, value.type, value.value);
}

function writeScalar(
  out: ByteWriter,
  key: string,
  type: 'uint16' | 'uint32' | 'int32' | 'float32' | 'bool' | 'string',
  value: number | boolean | string,
): void {
  const fail = (): never => {
    throw new RangeError(`${key}: ${JSON.stringify(value)} is not a valid ${type}`);
  };
  if (type === 'string') return typeof value === 'string' ? out.string(value) : fail();
  if (type === 'bool') return typeof value === 'boolean' ? out.u8(value ? 1 : 0) : fail();
  if (typeof value !== 'number') return fail();
  if (type === 'float32') return out.f32(value);
  if (!Number.isInteger(value)) return fail();
  if (type === 'uint16') return value < 0 || value > 0xffff ? fail() : out.u16(value);
  if (type === 'uint32') return value < 0 || value > 0xffffffff ? fail() : out.u32(value);
  return value < -0x80000000 || value > 0x7fffffff ? fail() : out.i32(value);
}

/** A growable little-endian byte buffer. */
class ByteWriter {
  private buffer = new Uint8Array(1 << 16);
  private view = new DataView(this.buffer.buffer);
  length = 0;

  private reserve(n: number): number {
    if (this.length + n > this.buffer.length) {
      let size = this.buffer.length * 2;
      while (size < this.length + n) size *= 2;
      const bigger = new Uint8Array(size);
      bigger.set(this.buffer.subarray(0, this.length));
      this.buffer = bigger;
      this.view = new DataView(bigger.buffer);
    }
    const at = this.length;
    this.length += n;
    return at;
  }

  u8(n: number): void {
    const at = this.reserve(1);
    this.view.setUint8(at, n);
  }

  u16(n: number): void {
    const at = this.reserve(2);
    this.view.setUint16(at, n, true);
  }

  u32(n: number): void {
    const at = this.reserve(4);
    this.view.setUint32(at, n, true);
  }

  i32(n: number): void {
    const at = this.reserve(4);
    this.view.setInt32(at, n, true);
  }

  f32(n: number): void {
    const at = this.reserve(4);
    this.view.setFloat32(at, n, true);
  }

  u64(n: number): void {
    // reserve() may swap the buffer: call it before reading `this.view`.
    const at = this.reserve(8);
    this.view.setBigUint64(at, BigInt(n), true);
  }

  bytes(data: Uint8Array): void {
    const at = this.reserve(data.length);
    this.buffer.set(data, at);
  }

  zeros(n: number): void {
    this.reserve(n);
  }

  string(text: string): void {
    const data = encoder.encode(text);
    this.u64(data.length);
    this.bytes(data);
  }

  finish(): Uint8Array<ArrayBuffer> {
    return this.buffer.slice(0, this.length);
  }
}
