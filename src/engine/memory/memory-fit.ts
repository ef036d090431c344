import { LmtabError } from '../../errors/index.js';
import type { GgufMetadataValue } from '../../store/index.js';
import { formatBytes } from '../../store/index.js';

/** Chromium's largest 64-bit WebAssembly memory: 16 GiB (V8's limit for memory64). */
export const memory64AddressSpace = 16 * 2 ** 30;

const gib = 2 ** 30;

/**
 * What lmtab's CPU engine (its wasm32 build, `-sMAXIMUM_MEMORY=4096MB`) can address: weights,
 * context cache and working memory all live in it. Past it, a browser with 64-bit WebAssembly
 * memory runs wllama's memory64 build with its memory raised (`memory64-build.ts`).
 */
export const cpuAddressSpace = 4 * gib;

/**
 * The largest GGUF the wasm32 build can read: llama.cpp's GGUF reader counts tensor sizes in
 * 32-bit `size_t` there ("tensor '...' size overflow" past it).
 */
export const cpuFileLimit = 4 * gib;

/**
 * Memory the CPU engine uses besides weights and the context cache, for a default batch of 512:
 * code and data of the build, thread stacks, and llama.cpp's compute buffers, which grow with the
 * embedding and the vocabulary ({@link computeBytes}).
 */
const runtimeBytes = 160 * 2 ** 20;

/** Tokens of one batch llama.cpp plans its compute buffers for (its default `n_ubatch`). */
const batchTokens = 512;

/** What loading a model needs, in bytes. */
export interface MemoryNeed {
  /** Tensor data: the GGUF files' sizes (model and projector). */
  weightsBytes: number;
  /** The largest single file: the wasm32 reader's limit applies to each. */
  largestFileBytes: number;
  /** The context cache at the loaded context, when the model's layout is known. */
  kvCacheBytes?: number;
  /** The context the cache was sized for (tokens), when it was. */
  contextLength?: number;
  /** Working memory besides weights and cache (compute buffers, code, stacks). */
  workingBytes: number;
}

/** How one compute path holds a model: `yes`, `no`, or `unknown` where the browser cannot say. */
export interface PathFit {
  fits: 'yes' | 'no' | 'unknown';
  /** One sentence for people, with the sizes. */
  text: string;
  /**
   * The CPU build that holds it, where one does: lmtab's `wasm32` build, or wllama's `memory64`
   * build for what passes 4 GiB.
   */
  build?: CpuBuildKind;
}

/** lmtab's wasm32 CPU build, or wllama's memory64 build with its memory raised. */
export type CpuBuildKind = 'wasm32' | 'memory64';

/** How a model fits this device on each compute path, and why. */
export interface ModelFit {
  need: MemoryNeed;
  /** lmtab's WebAssembly engine on the CPU (every browser). */
  cpu: PathFit;
  /** llama.cpp's WebGPU backend (weights and cache in GPU memory). */
  gpu: PathFit;
}

/** What is known of the device. */
export interface DeviceMemory {
  /** System memory in bytes (`navigator.deviceMemory`, rounded and capped at 8 GB by Chromium). */
  memoryBytes?: number;
  /** Whether a WebGPU adapter llama.cpp can use is present; undefined when not probed. */
  gpu?: boolean;
  /**
   * Whether the browser runs the memory64 build (64-bit memories and JSPI); undefined when not
   * probed, which counts as yes.
   */
  memory64?: boolean;
}

function metadataNumber(
  metadata: Map<string, GgufMetadataValue>,
  key: string,
): number | number[] | undefined {
  const value = metadata.get(key);
  if (typeof value === 'number' || typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(Number);
  return undefined;
}

/**
 * The context cache llama.cpp allocates for `contextLength` tokens: keys and values of every layer
 * that has attention (LFM2's convolution layers have a KV head count of 0), at `bytesPerValue`
 * (2 for F16, 34/32 for Q8_0). Undefined when the metadata does not give the layout.
 */
export function kvCacheBytes(
  metadata: Map<string, GgufMetadataValue>,
  contextLength: number,
  bytesPerValue: number,
): number | undefined {
  const arch = metadata.get('general.architecture');
  if (typeof arch !== 'string') return undefined;
  const blocks = metadataNumber(metadata, `${arch}.block_count`);
  const heads = metadataNumber(metadata, `${arch}.attention.head_count`);
  const kvHeads = metadataNumber(metadata, `${arch}.attention.head_count_kv`) ?? heads;
  const embedding = metadataNumber(metadata, `${arch}.embedding_length`);
  if (typeof blocks !== 'number' || kvHeads === undefined) return undefined;
  const headCount = Array.isArray(heads) ? heads.find((h) => h > 0) : heads;
  const fallback = typeof embedding === 'number' && headCount ? embedding / headCount : undefined;
  const keyLength = metadataNumber(metadata, `${arch}.attention.key_length`) ?? fallback;
  const valueLength = metadataNumber(metadata, `${arch}.attention.value_length`) ?? fallback;
  if (typeof keyLength !== 'number' || typeof valueLength !== 'number') return undefined;
  let values = 0;
  for (let layer = 0; layer < blocks; layer++) {
    const layerHeads = Array.isArray(kvHeads) ? (kvHeads[layer] ?? 0) : kvHeads;
    values += layerHeads * (keyLength + valueLength);
  }
  return Math.ceil(values * contextLength * bytesPerValue);
}

/**
 * llama.cpp's compute buffers for a batch of 512 tokens, from the model's widths: activations of a
 * few embedding-wide and feed-forward-wide tensors per token, and the output's logits.
 */
export function computeBytes(metadata: Map<string, GgufMetadataValue>): number {
  const arch = metadata.get('general.architecture');
  const width = (key: string) => {
    const value = typeof arch === 'string' ? metadataNumber(metadata, `${arch}.${key}`) : undefined;
    return Array.isArray(value) ? Math.max(0, ...value) : (value ?? 0);
  };
  const tokens = metadata.get('tokenizer.ggml.tokens');
  const vocab = Array.isArray(tokens) ? tokens.length : 0;
  const perToken = 8 * width('embedding_length') + 2 * width('feed_forward_length') + vocab;
  return runtimeBytes + batchTokens * perToken * 4;
}

/** Options of {@link memoryNeed}. */
export interface MemoryNeedOptions {
  /** Each GGUF file's size in bytes (model parts, then the projector if any). */
  fileBytes: number[];
  /** The model's GGUF metadata, when read (sizes the cache and compute buffers). */
  metadata?: Map<string, GgufMetadataValue>;
  /** Context the model is loaded with (tokens); the cache is sized only when given. */
  contextLength?: number;
  /** Bytes per cached key or value; default 34/32 (Q8_0, the CPU build's cache). */
  kvBytesPerValue?: number;
}

/** What a model needs in memory, from its files' sizes and (when known) its layout. */
export function memoryNeed(options: MemoryNeedOptions): MemoryNeed {
  const weightsBytes = options.fileBytes.reduce((sum, bytes) => sum + bytes, 0);
  const need: MemoryNeed = {
    weightsBytes,
    largestFileBytes: Math.max(0, ...options.fileBytes),
    workingBytes: options.metadata
      ? computeBytes(options.metadata)
      : runtimeBytes + weightsBytes / 16,
  };
  if (options.metadata && options.contextLength !== undefined) {
    const kv = kvCacheBytes(
      options.metadata,
      options.contextLength,
      options.kvBytesPerValue ?? 34 / 32,
    );
    if (kv !== undefined) {
      need.kvCacheBytes = kv;
      need.contextLength = options.contextLength;
    }
  }
  return need;
}

/** Bytes in GiB for people: `4 GiB`, `1.5 GiB`. */
export const gibText = (bytes: number) => `${(bytes / gib).toFixed(bytes % gib === 0 ? 0 : 1)} GiB`;

/** The sizes that make up a need, in words: "2.7 GB of weights, 0.1 GB of context cache, ...". */
function parts(need: MemoryNeed): string {
  const cache =
    need.kvCacheBytes === undefined
      ? ''
      : `, ${formatBytes(need.kvCacheBytes)} of context cache at ${need.contextLength?.toLocaleString('en')} tokens`;
  return `${formatBytes(need.weightsBytes)} of weights${cache} and about ${formatBytes(need.workingBytes)} of working memory`;
}

/** Bytes the GPU path holds: weights and context cache. */
export function gpuBytes(need: MemoryNeed): number {
  return need.weightsBytes + (need.kvCacheBytes ?? 0);
}

/** Bytes the CPU engine holds: weights, context cache and working memory. */
export function cpuBytes(need: MemoryNeed): number {
  return gpuBytes(need) + need.workingBytes;
}

/** A hint where the weights and working memory alone would fit `limit`: the context is too long. */
function shorterContext(need: MemoryNeed, limit: number): string {
  return need.kvCacheBytes !== undefined && need.weightsBytes + need.workingBytes < limit
    ? ' A shorter context (num_ctx) may fit.'
    : '';
}

/** The CPU path's verdict, its reason (without the "CPU: ..." label) and the build that holds it. */
function cpuVerdict(
  need: MemoryNeed,
  device: DeviceMemory,
): { fits: PathFit['fits']; why: string; build?: CpuBuildKind } {
  const sum = cpuBytes(need);
  const engine = "this browser's CPU engine (WebAssembly with 32-bit memory)";
  const wasm32 = need.largestFileBytes <= cpuFileLimit && sum <= cpuAddressSpace;
  let build: CpuBuildKind | undefined = wasm32 ? 'wasm32' : undefined;
  let note = '';
  if (!wasm32 && sum <= memory64AddressSpace && device.memory64 !== false) {
    build = 'memory64';
    note = ` Past ${gibText(cpuAddressSpace)} it runs on wllama's memory64 build, slower than lmtab's.`;
  }
  if (build === undefined && device.memory64 !== false) {
    return {
      fits: 'no',
      why: `needs ${formatBytes(sum)} (${parts(need)}); this browser's CPU engines can address ${gibText(memory64AddressSpace)} at most.${shorterContext(need, memory64AddressSpace)}`,
    };
  }
  // Without memory64, what the wasm32 build holds is all there is.
  const noMemory64 =
    sum <= memory64AddressSpace
      ? ' This browser has no 64-bit WebAssembly memory with JSPI (Chromium 137 or later has), which larger models need.'
      : '';
  if (build === undefined && need.largestFileBytes > cpuFileLimit) {
    return {
      fits: 'no',
      why: `a file of ${formatBytes(need.largestFileBytes)}; ${engine} can address ${gibText(cpuAddressSpace)} and read files up to ${gibText(cpuFileLimit)}.${noMemory64}`,
    };
  }
  if (build === undefined) {
    return {
      fits: 'no',
      why: `needs ${formatBytes(sum)} (${parts(need)}); ${engine} can address ${gibText(cpuAddressSpace)}.${shorterContext(need, cpuAddressSpace)}${noMemory64}`,
    };
  }
  if (device.memoryBytes !== undefined && sum > device.memoryBytes) {
    // The browser rounds the device's memory down (Chromium to a power of two, at most 8 GB).
    return {
      fits: 'unknown',
      why: `needs ${formatBytes(sum)} (${parts(need)}); this device reports about ${formatBytes(device.memoryBytes)} of memory.${note}`,
      build,
    };
  }
  return { fits: 'yes', why: `needs ${formatBytes(sum)} (${parts(need)}).${note}`, build };
}

const cpuLabels: Record<PathFit['fits'], string> = {
  yes: 'fits',
  no: 'does not fit',
  unknown: 'may not fit',
};

function cpuFit(need: MemoryNeed, device: DeviceMemory): PathFit {
  const { fits, why, build } = cpuVerdict(need, device);
  return { fits, text: `CPU: ${cpuLabels[fits]}: ${why}`, ...(build && { build }) };
}

function gpuFit(need: MemoryNeed, device: DeviceMemory): PathFit {
  if (device.gpu === false) {
    return { fits: 'no', text: 'GPU: no WebGPU adapter llama.cpp can use in this browser.' };
  }
  return {
    fits: 'unknown',
    text: `GPU: needs about ${formatBytes(gpuBytes(need))} of GPU memory (weights${need.kvCacheBytes === undefined ? '' : ' and context cache'}); a page cannot read how much the GPU has.`,
  };
}

/** How a model with `need` fits this device, on the CPU path and on the GPU path. */
export function modelFit(need: MemoryNeed, device: DeviceMemory = {}): ModelFit {
  return { need, cpu: cpuFit(need, device), gpu: gpuFit(need, device) };
}

/**
 * The CPU build that holds a model with `need`; a load that neither can hold is refused, before
 * the engine is started, with a `model_too_large` error (507) naming the sizes and the limit.
 */
export function assertCpuFit(
  label: string,
  need: MemoryNeed,
  device: DeviceMemory = {},
): CpuBuildKind {
  const { fits, why, build } = cpuVerdict(need, device);
  if (fits === 'no' || build === undefined) {
    throw new LmtabError('model_too_large', `${label} cannot be loaded on the CPU: ${why}`);
  }
  return build;
}

/**
 * The cause of a failed load in words, where the engine's log names one lmtab knows: an allocation
 * the engine's memory could not give, or a file too large for the wasm32 reader. Undefined
 * otherwise.
 */
export function loadFailureCause(log: readonly string[]): string | undefined {
  for (const line of [...log].reverse()) {
    const allocation = /insufficient memory \(attempted to allocate ([\d.]+) MB\)/.exec(line);
    if (allocation) {
      return `the engine could not allocate ${formatBytes(Number(allocation[1]) * 2 ** 20)} in its memory, which holds at most ${gibText(cpuAddressSpace)} for weights, context cache and working memory`;
    }
    if (/size overflow|tensor data is not within the file bounds/.test(line)) {
      return `the file is larger than this engine's GGUF reader can address (${gibText(cpuFileLimit)} on WebAssembly with 32-bit memory)`;
    }
  }
  return undefined;
}
