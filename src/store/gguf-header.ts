import { LmtabError } from '../errors/index.js';
import type { GgufSummary } from './model-record.js';

/** A decoded GGUF metadata value; 64-bit integers beyond 2^53 stay `bigint`. */
export type GgufMetadataValue = number | bigint | boolean | string | GgufMetadataValue[];

/** One tensor as the header describes it. */
export interface GgufTensorInfo {
  /** Tensor name, e.g. `blk.0.attn_q.weight`. */
  name: string;
  /** `ne`, innermost dimension first. */
  dims: number[];
  /** ggml type id (0 F32, 1 F16, 8 Q8_0, 12 Q4_K, ...). */
  type: number;
  /** ggml type name, or `type_N` for an id this reader does not know. */
  typeName: string;
  /** Byte offset of the tensor's data, relative to the data section. */
  offset: number;
}

/** The parsed header of a GGUF file. */
export interface GgufHeader {
  /** GGUF version (2 or 3). */
  version: number;
  /** Metadata in file order. */
  metadata: Map<string, GgufMetadataValue>;
  /** Tensor infos in file order. */
  tensors: GgufTensorInfo[];
  /** `general.alignment`, default 32. */
  alignment: number;
  /** Absolute byte offset where tensor data begins. */
  dataOffset: number;
}

/** Options of {@link readGgufHeader} and {@link readGgufSummary}. */
export interface ReadGgufOptions {
  /** Bytes read by the first `blob.slice`; each further read doubles, up to 64 MiB; default 256 KiB. */
  initialWindow?: number;
  /** Stops the read before the next slice. */
  signal?: AbortSignal;
  /**
   * Size of the whole file when `blob` holds only its first bytes (an upload still arriving), for
   * the check that the tensor data fits; default `blob.size`. Infinity skips that check.
   */
  fileSize?: number;
}

/** [name, elements per block, bytes per block] by ggml type id. */
const ggmlTypes: Record<number, [string, number, number]> = {
  0: ['F32', 1, 4],
  1: ['F16', 1, 2],
  2: ['Q4_0', 32, 18],
  3: ['Q4_1', 32, 20],
  6: ['Q5_0', 32, 22],
  7: ['Q5_1', 32, 24],
  8: ['Q8_0', 32, 34],
  9: ['Q8_1', 32, 36],
  10: ['Q2_K', 256, 84],
  11: ['Q3_K', 256, 110],
  12: ['Q4_K', 256, 144],
  13: ['Q5_K', 256, 176],
  14: ['Q6_K', 256, 210],
  15: ['Q8_K', 256, 292],
  16: ['IQ2_XXS', 256, 66],
  17: ['IQ2_XS', 256, 74],
  18: ['IQ3_XXS', 256, 98],
  19: ['IQ1_S', 256, 50],
  20: ['IQ4_NL', 32, 18],
  21: ['IQ3_S', 256, 110],
  22: ['IQ2_S', 256, 82],
  23: ['IQ4_XS', 256, 136],
  24: ['I8', 1, 1],
  25: ['I16', 1, 2],
  26: ['I32', 1, 4],
  27: ['I64', 1, 8],
  28: ['F64', 1, 8],
  29: ['IQ1_M', 256, 56],
  30: ['BF16', 1, 2],
  34: ['TQ1_0', 256, 54],
  35: ['TQ2_0', 256, 66],
  39: ['MXFP4', 32, 17],
};

/** llama.cpp's `llama_ftype` (llama.h) as quantization names. */
const fileTypes: Record<number, string> = {
  0: 'F32',
  1: 'F16',
  2: 'Q4_0',
  3: 'Q4_1',
  7: 'Q8_0',
  8: 'Q5_0',
  9: 'Q5_1',
  10: 'Q2_K',
  11: 'Q3_K_S',
  12: 'Q3_K_M',
  13: 'Q3_K_L',
  14: 'Q4_K_S',
  15: 'Q4_K_M',
  16: 'Q5_K_S',
  17: 'Q5_K_M',
  18: 'Q6_K',
  19: 'IQ2_XXS',
  20: 'IQ2_XS',
  21: 'Q2_K_S',
  22: 'IQ3_XS',
  23: 'IQ3_XXS',
  24: 'IQ1_S',
  25: 'IQ4_NL',
  26: 'IQ3_S',
  27: 'IQ3_M',
  28: 'IQ2_S',
  29: 'IQ2_M',
  30: 'IQ4_XS',
  31: 'IQ1_M',
  32: 'BF16',
  36: 'TQ1_0',
  37: 'TQ2_0',
  38: 'MXFP4_MOE',
};

/** LLAMA_FTYPE_GUESSED: set by llama.cpp, not a quantization of its own. */
const guessedFileType = 1024;

const maxWindow = 64 << 20;
const valueTypeNames = [
  'uint8',
  'int8',
  'uint16',
  'int16',
  'uint32',
  'int32',
  'float32',
  'bool',
  'string',
  'array',
  'uint64',
  'int64',
  'float64',
];
/** Smallest encoded size of each value type, to reject impossible counts before allocating. */
const minValueSize = [1, 1, 2, 2, 4, 4, 4, 1, 8, 12, 8, 8, 8];

/** Reads a GGUF header from a Blob with growing `blob.slice` windows, never the whole file. */
export async function readGgufHeader(
  blob: Blob,
  options: ReadGgufOptions = {},
): Promise<GgufHeader> {
  const input = new BlobCursor(blob, options.initialWindow ?? 256 << 10, options.signal);
  await checkMagic(input);
  await input.need(4, 'the version');
  const version = input.u32();
  if (version !== 2 && version !== 3) {
    const bigEndian = version === 0x02000000 || version === 0x03000000;
    throw invalid(
      `Expected GGUF version 2 or 3 (little-endian), but the file has version ${version}` +
        `${bigEndian ? ' (a big-endian GGUF file)' : ''}.`,
    );
  }
  await input.need(16, 'the tensor and metadata counts');
  const tensorCount = input.u64Count('the header', 24, 'tensors');
  const metadataCount = input.u64Count('the header', 8 + 4 + 1, 'metadata entries');

  const metadata = new Map<string, GgufMetadataValue>();
  for (let i = 0; i < metadataCount; i++) {
    const key = await input.string(`metadata key ${i + 1} of ${metadataCount}`);
    const what = `metadata value "${key}"`;
    await input.need(4, what);
    const type = input.u32();
    metadata.set(key, await readValue(input, type, what));
  }

  const tensors: GgufTensorInfo[] = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = await input.string(`tensor info ${i + 1} of ${tensorCount}`);
    const what = `tensor info "${name}"`;
    await input.need(4, what);
    const nDims = input.u32();
    if (nDims > 4) {
      throw invalid(`Expected at most 4 dimensions for ${what}, but the file says ${nDims}.`);
    }
    await input.need(nDims * 8 + 12, what);
    const dims: number[] = [];
    for (let d = 0; d < nDims; d++) dims.push(input.u64Count(what, 0, 'elements in a dimension'));
    const type = input.u32();
    const offset = input.u64Count(what, 0, 'as its data offset');
    tensors.push({ name, dims, type, typeName: ggmlTypes[type]?.[0] ?? `type_${type}`, offset });
  }

  const alignmentValue = metadata.get('general.alignment');
  const alignment = typeof alignmentValue === 'number' && alignmentValue > 0 ? alignmentValue : 32;
  const dataOffset = Math.ceil(input.position / alignment) * alignment;
  checkDataSize(options.fileSize ?? blob.size, dataOffset, tensors);
  return { version, metadata, tensors, alignment, dataOffset };
}

/** Reads what the store shows of a model: architecture, size, quantization, template, kind. */
export async function readGgufSummary(
  blob: Blob,
  options: ReadGgufOptions = {},
): Promise<GgufSummary> {
  const { metadata, tensors } = await readGgufHeader(blob, options);
  const text = (key: string): string | undefined => {
    const value = metadata.get(key);
    return typeof value === 'string' ? value : undefined;
  };
  const count = (key: string): number | undefined => {
    const value = metadata.get(key);
    return typeof value === 'number' || typeof value === 'bigint' ? Number(value) : undefined;
  };
  const isProjector = text('general.type') === 'mmproj' || text('general.architecture') === 'clip';
  const architecture = text('general.architecture') ?? (isProjector ? 'clip' : undefined);
  if (architecture === undefined) {
    throw invalid(
      'Expected the GGUF metadata key general.architecture (a string), but the file has none.',
    );
  }
  let parameterCount = 0;
  for (const tensor of tensors) parameterCount += elements(tensor.dims);
  const summary: GgufSummary = {
    architecture,
    parameterCount,
    quantization: quantizationOf(count('general.file_type'), tensors),
    fileKind: isProjector ? 'mmproj' : 'model',
  };
  const optional: Partial<GgufSummary> = {
    name: text('general.name'),
    contextLength: count(`${architecture}.context_length`),
    embeddingLength: count(`${architecture}.embedding_length`),
    blockCount: count(`${architecture}.block_count`),
    chatTemplate: text('tokenizer.chat_template'),
    expertCount: count(`${architecture}.expert_count`),
    projectorType: text('clip.projector_type') ?? text('clip.vision.projector_type'),
    poolingType: count(`${architecture}.pooling_type`),
  };
  // Absent keys stay absent rather than present-but-undefined.
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined) Object.assign(summary, { [key]: value });
  }
  return summary;
}

function quantizationOf(fileType: number | undefined, tensors: GgufTensorInfo[]): string {
  const named = fileType === undefined ? undefined : fileTypes[fileType & ~guessedFileType];
  if (named !== undefined) return named;
  // Weighted by elements: many small F32 norm tensors must not outvote the weight matrices.
  const byType = new Map<string, number>();
  for (const tensor of tensors) {
    byType.set(tensor.typeName, (byType.get(tensor.typeName) ?? 0) + elements(tensor.dims));
  }
  let best = 'unknown';
  let bestCount = -1;
  for (const [name, n] of byType) {
    if (n > bestCount) [best, bestCount] = [name, n];
  }
  return best;
}

function elements(dims: number[]): number {
  return dims.reduce((product, n) => product * n, 1);
}

function checkDataSize(fileSize: number, dataOffset: number, tensors: GgufTensorInfo[]): void {
  let end = dataOffset;
  for (const tensor of tensors) {
    const type = ggmlTypes[tensor.type];
    // Unknown types have unknown sizes: the check would only guess.
    if (type === undefined) return;
    const [, blockElements, blockBytes] = type;
    end = Math.max(
      end,
      dataOffset + tensor.offset + Math.ceil(elements(tensor.dims) / blockElements) * blockBytes,
    );
  }
  if (end > fileSize) {
    throw invalid(
      `The GGUF file is truncated: its tensor data ends at byte ${end}, ` +
        `but the file has only ${fileSize} bytes.`,
    );
  }
}

async function checkMagic(input: BlobCursor): Promise<void> {
  const head = await input.peek(8);
  if (
    head.length >= 4 &&
    head[0] === 0x47 &&
    head[1] === 0x47 &&
    head[2] === 0x55 &&
    head[3] === 0x46
  ) {
    input.skip(4);
    return;
  }
  const hex = [...head].map((b) => b.toString(16).padStart(2, '0')).join(' ');
  const text = [...head]
    .map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.'))
    .join('');
  const found = head.length === 0 ? 'the file is empty' : `the first bytes are ${hex} ("${text}")`;
  throw invalid(
    `Expected a GGUF file (magic "GGUF" = 47 47 55 46, then version 2 or 3), but ${found}.`,
  );
}

async function readValue(
  input: BlobCursor,
  type: number,
  what: string,
): Promise<GgufMetadataValue> {
  if (type === 8) return input.string(what);
  if (type === 9) {
    await input.need(12, what);
    const itemType = input.u32();
    if (itemType === 9 || itemType >= valueTypeNames.length) {
      throw invalid(
        `Expected an array element type 0 to 12 (not 9) for ${what}, but found ${itemType}.`,
      );
    }
    const length = input.u64Count(
      what,
      minValueSize[itemType],
      `${valueTypeNames[itemType]} items`,
    );
    const items: GgufMetadataValue[] = new Array<GgufMetadataValue>(length);
    if (itemType === 8) {
      for (let i = 0; i < length; i++) items[i] = input.stringSync() ?? (await input.string(what));
    } else {
      await input.need(length * minValueSize[itemType], what);
      for (let i = 0; i < length; i++) items[i] = input.scalar(itemType);
    }
    return items;
  }
  if (type >= valueTypeNames.length) {
    throw invalid(`Expected a GGUF value type 0 to 12 for ${what}, but found ${type}.`);
  }
  await input.need(minValueSize[type], what);
  return input.scalar(type);
}

function invalid(message: string): LmtabError {
  return new LmtabError('invalid_request', message);
}

/** A forward-only reader over a Blob that fetches growing windows on demand. */
class BlobCursor {
  private buffer = new Uint8Array(0);
  private view = new DataView(this.buffer.buffer);
  /** File offset of `buffer[0]`. */
  private start = 0;
  private at = 0;
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly blob: Blob,
    private window: number,
    private readonly signal: AbortSignal | undefined,
  ) {}

  get position(): number {
    return this.start + this.at;
  }

  private available(): number {
    return this.buffer.length - this.at;
  }

  /** Ensures `n` bytes are buffered, or throws a truncation error naming what was being read. */
  async need(n: number, what: string): Promise<void> {
    if (this.available() >= n) return;
    const from = this.position;
    if (from + n > this.blob.size) {
      throw invalid(
        `The GGUF header is truncated: reading ${what} needs ${n} bytes at offset ${from}, ` +
          `but the file ends at byte ${this.blob.size}.`,
      );
    }
    await this.fill(Math.max(n, this.window));
  }

  /** Up to `n` bytes at the current position, without consuming them. */
  async peek(n: number): Promise<Uint8Array> {
    if (this.available() < n) await this.fill(Math.max(n, this.window));
    return this.buffer.subarray(this.at, this.at + n);
  }

  private async fill(size: number): Promise<void> {
    this.signal?.throwIfAborted();
    this.window = Math.min(this.window * 2, maxWindow);
    const from = this.position;
    const to = Math.min(from + size, this.blob.size);
    this.buffer = new Uint8Array(await this.blob.slice(from, to).arrayBuffer());
    this.view = new DataView(this.buffer.buffer);
    this.start = from;
    this.at = 0;
  }

  skip(n: number): void {
    this.at += n;
  }

  u32(): number {
    const value = this.view.getUint32(this.at, true);
    this.at += 4;
    return value;
  }

  /** A u64 count, size or offset; `minItemSize` rejects counts the rest of the file cannot hold. */
  u64Count(what: string, minItemSize = 0, unit = 'items'): number {
    const value = this.view.getBigUint64(this.at, true);
    this.at += 8;
    const remaining = this.blob.size - this.position;
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || Number(value) * minItemSize > remaining) {
      const size = minItemSize <= 1 ? '' : ` of at least ${minItemSize} bytes`;
      throw invalid(
        `The GGUF header is truncated or corrupt: ${what} declares ${value} ${unit}${size}, ` +
          `but only ${remaining} bytes of the file remain.`,
      );
    }
    return Number(value);
  }

  /** A string if it is already buffered, else undefined (the caller falls back to `string`). */
  stringSync(): string | undefined {
    if (this.available() < 8) return undefined;
    const length = this.view.getBigUint64(this.at, true);
    if (length > BigInt(this.available() - 8)) return undefined;
    const begin = this.at + 8;
    this.at = begin + Number(length);
    return this.decoder.decode(this.buffer.subarray(begin, this.at));
  }

  async string(what: string): Promise<string> {
    await this.need(8, what);
    const length = this.u64Count(what, 1, 'bytes');
    await this.need(length, what);
    const begin = this.at;
    this.at += length;
    return this.decoder.decode(this.buffer.subarray(begin, this.at));
  }

  /** A scalar of GGUF value type `type` (not string or array); bytes must be buffered. */
  scalar(type: number): number | bigint | boolean {
    const v = this.view;
    const at = this.at;
    this.at += minValueSize[type];
    switch (type) {
      case 0:
        return v.getUint8(at);
      case 1:
        return v.getInt8(at);
      case 2:
        return v.getUint16(at, true);
      case 3:
        return v.getInt16(at, true);
      case 4:
        return v.getUint32(at, true);
      case 5:
        return v.getInt32(at, true);
      case 6:
        return v.getFloat32(at, true);
      case 7:
        return v.getUint8(at) !== 0;
      case 10:
        return safe(v.getBigUint64(at, true));
      case 11:
        return safe(v.getBigInt64(at, true));
      default:
        return v.getFloat64(at, true);
    }
  }
}

function safe(value: bigint): number | bigint {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER)
    ? Number(value)
    : value;
}
