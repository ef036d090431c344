import type { EmbeddingRow } from './embeddings.js';
import type { NativeBuildInfo } from './llama-bench.js';
import type { CapabilityCheck } from './page/bench-api.js';
import type { Figure } from './stats.js';
import type { BenchQuant, BenchSettings, BenchSize } from './workload.js';

/** Resident memory by kind, MiB, and the anonymous part by Chromium process type. */
export interface MemoryParts {
  anonMiB: number;
  fileMiB: number;
  shmemMiB: number;
  anonByTypeMiB: Record<string, number>;
}

/** One engine on one compute path: speeds, turn latencies, load time and memory. */
export interface EngineRow {
  size: BenchSize;
  /**
   * `llama.cpp (native)`: llama.cpp built here with `-march=native`, timed by its llama-bench;
   * `llama.node (prebuilt)`: `@fugood/llama.node`'s prebuilt binary (no AVX, one thread), the
   * bench's earlier reference; `wllama`: wllama 3.8.1's stock wasm; `lmtab-cpu`: lmtab's CPU
   * build (wllama's engine with ggml's wasm SIMD kernels, `wasm/`).
   */
  engine:
    'llama.cpp (native)' | 'llama.node (prebuilt)' | 'wllama' | 'lmtab-cpu' | 'node-llama-wasm';
  /** The model file's weight type; absent means Q8_0 (results written before Q4_K_M rows). */
  quant?: BenchQuant;
  /** `cpu` for native threads, `wasm` for WebAssembly threads, `webgpu`. */
  backend: 'cpu' | 'wasm' | 'webgpu';
  /**
   * The wasm build lmtab's engine ran the model on (`lmtab-cpu`, `wllama 3.13.0`, `wllama 3.13.0
   * memory64` past what wasm32 holds) and its K-quant kernels (`relaxed-simd`: lmtab's), as the
   * engine reported them at the load.
   */
  build?: string;
  kernels?: string;
  /** {@link peakMemoryMiB}'s sample split into anonymous, file-backed and shared resident memory. */
  peakMemoryParts?: MemoryParts;
  baselineMemoryParts?: MemoryParts;
  threads: number;
  /** Whether this path ran here; when not, `reason` says why. */
  available: boolean;
  reason?: string;
  /** Prompt processing, tokens/s, from the engine's own timings. */
  promptTokS?: Figure;
  /** Generation of `decodeTokens` tokens, tokens/s, from the engine's own timings. */
  decodeTokS?: Figure;
  /** Prompt tokens the engine processed for the prompt figure. */
  promptTokens?: number;
  /** Time to first token of the first turn, ms. */
  ttftTurn1Ms?: Figure;
  /** Time to first token of the last turn, earlier turns cached, ms. */
  ttftLastTurnMs?: Figure;
  /** Time to first token of the last turn's conversation with nothing cached, ms. */
  ttftLastTurnColdMs?: Figure;
  /**
   * Prompt tokens the engine processed for the last turn (cached ones excluded), and for it from
   * scratch: the two show what the cache saved.
   */
  lastTurnPromptTokens?: number;
  lastTurnColdPromptTokens?: number;
  /** Model load, ms. */
  loadMs?: Figure;
  /** Where the model loads from. */
  loadFrom?: string;
  /** Peak resident memory while this path ran, MiB. */
  peakMemoryMiB?: number;
  /** Resident memory before loading, MiB (the browser itself). */
  baselineMemoryMiB?: number;
  /** Peak resident memory through the first load only, before any request, MiB. */
  loadPeakMemoryMiB?: number;
  /** Resident memory once the first load ended, before any request (steady), MiB. */
  loadedMemoryMiB?: number;
  /** What llama.cpp allocated at the load (weights, cache, compute), as its log said, MiB. */
  engineBuffersMiB?: { modelMiB: number; cacheMiB: number; computeMiB: number };
  /** Whether the engine streams tokens as it decodes them (time to first token means that). */
  streams?: boolean;
  /** When its run started, where a results file joins several runs (`add-run.ts`). */
  measuredAt?: string;
}

/** One way of reaching lmtab's engine, timed on the client. */
export interface TransportRow {
  size: BenchSize;
  path: 'direct engine call' | 'service worker' | 'relay';
  threads: number;
  available: boolean;
  reason?: string;
  /** Tokens after the first over the time from first to last piece, as the client saw them. */
  decodeTokS?: Figure;
  /** Request sent to first text piece, ms. */
  ttftMs?: Figure;
}

/** Several clients at once through one transport. */
export interface ConcurrencyRow {
  size: BenchSize;
  /** The file's weight type; absent in runs that measured Q8_0 alone. */
  quant?: BenchQuant;
  via: 'relay' | 'service worker';
  clients: number;
  threads: number;
  available: boolean;
  reason?: string;
  /** All clients' generated tokens over the wall time from first request to last answer. */
  aggregateTokS?: Figure;
}

/** One target of the issue, checked against the figures. */
export interface TargetCheck {
  target: string;
  measured: string;
  /** Undefined when the figures it needs were not measured. */
  met?: boolean;
}

/** One `npm run bench` among those a results file joins. */
export interface RunSummary {
  startedAt: string;
  finishedAt: string;
  /** The 1-minute load average at its start. */
  loadAverage: number;
  sizes: BenchResults['settings']['sizes'];
  /** Whether it measured the transports and concurrent clients (the first size only). */
  transports: boolean;
}

/** Everything one `npm run bench` measured. */
export interface BenchResults {
  schema: 1;
  startedAt: string;
  finishedAt: string;
  settings: BenchSettings;
  machine: {
    cpu: string;
    cores: number;
    memoryGiB: number;
    os: string;
    node: string;
    browser: string;
    /** Other work on the machine while measuring: the 1-minute load average at the start. */
    loadAverage: number;
  };
  /** The native reference built here (`bench/build-native.sh`), when it ran. */
  native?: NativeBuildInfo;
  /** The runs this file joins, oldest first, when `--add-to` added one to another. */
  runs?: RunSummary[];
  models: { size: BenchSize; quant?: BenchQuant; id: string; bytes: number }[];
  /** How peak memory was measured. */
  memoryMethod: string;
  engines: EngineRow[];
  transport: TransportRow[];
  concurrency: ConcurrencyRow[];
  /** Embeddings throughput (bench/embeddings.ts); absent in runs made before it existed. */
  embeddings?: EmbeddingRow[];
  engineChoice: {
    /** node-llama-wasm against lmtab's needs, checked in the page. */
    checks: CapabilityCheck[];
    verdict: string;
  };
  targets: TargetCheck[];
  notMeasured: { what: string; why: string }[];
}
