import type { LogRing } from '../log-ring.js';

/** The prefix of the lines lmtab's watch in wllama's worker logs (`gpu-worker-prologue.ts`). */
export const gpuWatchPrefix = 'lmtab-gpu:';

/** Lines that say where a load runs: offload, the GPU llama.cpp took, graph splits, GPU trouble. */
const backendPatterns = [
  /offload(ed|ing) .*layers? to GPU/,
  /ggml_webgpu: /,
  /nodes = [\d,]+, splits = \d+/,
  /\bWebGPU\b.* buffer size/,
  // The projector's backend and its graph (llama.cpp's mtmd: clip's own scheduler).
  /mtmd_subcontext: using /,
  /reserve_compute_meta: graph splits = \d+/,
  new RegExp(`^${gpuWatchPrefix}`),
];

/**
 * Lines that say the GPU device is gone: lmtab's watch saw it lost, llama.cpp's lost-device callback
 * ran, or a wait on the GPU failed (what a lost device does to llama.cpp's next readback). Not
 * `Device error!` (a validation or out-of-memory error: the device is still there) nor `Failed to
 * get an adapter` (a load that never had one).
 */
const lossPatterns = [
  new RegExp(`^${gpuWatchPrefix} device lost`),
  /ggml_webgpu: Device lost!/,
  /ggml_webgpu: .*(failed with status|failed$|timed out after)/,
];

/** The adapter llama.cpp's WebGPU backend took, from its `ggml_webgpu: adapter_info` line. */
export interface LlamaAdapterInfo {
  vendor: string;
  architecture: string;
  /** llama.cpp's `name` field (the device). */
  device: string;
  description: string;
}

/** Options of {@link BackendRecord}. */
export interface BackendRecordOptions {
  /** Lines kept at most (the first ones: a load logs its backend first); default 100. */
  limit?: number;
  /** Told once, at the first line that says the GPU device is gone. */
  onGpuLost?: (line: string) => void;
}

/**
 * The lines of one wllama instance that say where it runs, kept whole for its life beside the
 * engine's log ring (200 lines, so a long load or a chat scrolls them away): llama.cpp's
 * `offloaded N/N layers to GPU`, `ggml_webgpu: adapter_info`, graph splits and WebGPU buffer sizes,
 * and any line saying the GPU device was lost.
 */
export class BackendRecord {
  private readonly kept: string[] = [];
  private lost: string | undefined;
  private readonly limit: number;

  constructor(
    private readonly ring: LogRing,
    private readonly options: BackendRecordOptions = {},
  ) {
    this.limit = options.limit ?? 100;
  }

  /** A logger in the shape wllama takes: every line goes to the ring, backend lines here too. */
  logger() {
    const push = (...args: unknown[]) =>
      this.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
    return { debug: push, log: push, info: push, warn: push, error: push };
  }

  /** Adds one line of the engine's log. */
  push(line: string): void {
    this.ring.push(line);
    if (!backendPatterns.some((pattern) => pattern.test(line))) return;
    if (this.kept.length < this.limit) this.kept.push(line.trim());
    if (this.lost === undefined && lossPatterns.some((pattern) => pattern.test(line))) {
      this.lost = line.trim();
      this.options.onGpuLost?.(this.lost);
    }
  }

  /** The kept lines, oldest first. */
  lines(): string[] {
    return [...this.kept];
  }

  /** The first line that said the GPU device is gone, if one did. */
  gpuLoss(): string | undefined {
    return this.lost;
  }

  /** Layers llama.cpp offloaded to the GPU, and of how many. */
  offloaded(): { layers: number; of: number } | undefined {
    return offloadedFromLog(this.kept);
  }
}

/** Layers llama.cpp offloaded to the GPU, and of how many, from the last such line of a log. */
export function offloadedFromLog(
  log: readonly string[],
): { layers: number; of: number } | undefined {
  let found: { layers: number; of: number } | undefined;
  for (const line of log) {
    const match = /offloaded (\d+)\/(\d+) layers to GPU/.exec(line);
    if (match) found = { layers: Number(match[1]), of: Number(match[2]) };
  }
  return found;
}

/** The graph split count of the last graph llama.cpp reserved (1: it all runs on one backend). */
export function graphSplitsFromLog(log: readonly string[]): number | undefined {
  let splits: number | undefined;
  for (const line of log) {
    const match = /nodes = [\d,]+, splits = (\d+)/.exec(line);
    if (match) splits = Number(match[1]);
  }
  return splits;
}

const adapterInfoTag = 'ggml_webgpu: adapter_info:';

/** The adapter llama.cpp's WebGPU backend took, from its `ggml_webgpu: adapter_info` line. */
export function adapterInfoFromLog(log: readonly string[]): LlamaAdapterInfo | undefined {
  for (const line of log) {
    const at = line.indexOf(adapterInfoTag);
    if (at < 0) continue;
    const fields = new Map(
      line
        .slice(at + adapterInfoTag.length)
        .split('|')
        .map((part) => {
          const colon = part.indexOf(':');
          return [part.slice(0, colon).trim(), part.slice(colon + 1).trim()] as const;
        }),
    );
    return {
      vendor: fields.get('vendor') ?? '',
      architecture: fields.get('architecture') ?? '',
      device: fields.get('name') ?? '',
      description: fields.get('device_desc') ?? '',
    };
  }
  return undefined;
}
