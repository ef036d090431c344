import type { Wllama } from '@wllama/wllama/esm/index.js';
import type { ModelStore } from '../../store/index.js';
import type { Capabilities } from '../gpu/capability-probe.js';
import type { EngineInfo, EngineSettings } from '../engine.js';
import type { CpuBuild } from '../builds/cpu-build.js';
import type { LogRing } from '../log-ring.js';
import type { BackendRecord } from '../gpu/backend-record.js';
import type { SlotQueue } from '../slot-queue.js';
import type { Residency, ResidencyState } from '../residency.js';

/** Options of `createWllamaEngine` (wllama-engine.ts). */
export interface WllamaEngineOptions {
  /** Where models are read from. */
  store: Pick<ModelStore, 'get' | 'open' | 'touch'>;
  /** URL of wllama's `wllama.wasm`. */
  wasmUrl: string;
  /** lmtab's CPU build, used for loads without WebGPU; without it wllama's stock build runs them. */
  cpuBuild?: CpuBuild;
  /**
   * lmtab's CPU build for the token routes (`/tokenize`, ...) of models that run on another build:
   * it loads their vocabulary only (`vocab-tokenizer.ts`). Default {@link cpuBuild}; without either,
   * those routes answer 501 for such models.
   */
  tokenizerBuild?: CpuBuild;
  /**
   * wllama's stock emscripten glue (its `src/wasm/wllama.js`): with it, a CPU load past what the
   * wasm32 build holds runs on the stock build with its memory raised (`memory64-build.ts`).
   */
  stockGlueCode?: string;
  /** Layers to offload to WebGPU; default all of them when an adapter exists. 0 = CPU only. */
  gpuLayers?: number;
  /** WebAssembly threads; default every core the page may use (1 without cross-origin isolation). */
  threads?: number;
  /** Context length in tokens shared by all slots; default `engineDefaults.contextLength` (4096). */
  contextLength?: number;
  /** KV cache type (see {@link EngineSettings.kvCache}); default `auto`. */
  kvCache?: EngineSettings['kvCache'];
  /** Parallel slots, i.e. requests decoded together in one batch; default `engineDefaults.parallelSlots` (4). */
  parallel?: number;
  /** Milliseconds an idle model stays loaded; default `engineDefaults.keepAliveMs` (5 minutes). */
  keepAliveMs?: number;
  /** Clock in epoch milliseconds; default `Date.now`. */
  clock?: () => number;
  /** Capability probe; default `probeCapabilities`. */
  probe?: () => Promise<Capabilities>;
}

export interface LoadedWllama {
  model: string;
  wllama: Wllama;
  sizeBytes: number;
  contextLength: number;
  info: EngineInfo;
  /** The engine's last log lines, quoted in load and generation failures. */
  log: LogRing;
  /** Its backend lines, kept whole, and whether its GPU device was lost. */
  backend: BackendRecord;
  /** Whether lmtab's GPU watch runs in its worker (`gpu-worker-prologue.ts`). */
  gpuWatched: boolean;
  /** Token ids that would make the output malformed UTF-8 (see utf8-guard.ts). */
  unsafeTokens: number[];
  /** Id of the token that opens a tool call in the model's chat format, if it has one. */
  toolCallStart: number | undefined;
  /** Id of `<think>` when the model's template does not think (banned in chats). */
  unusedThinkStart: number | undefined;
  /** Tokens starting mid-character, banned when logprobs are asked for (see utf8-guard.ts). */
  continuationTokens: number[];
  /** Parallel slots: a request beyond them waits here, as wllama would never answer it. */
  slots: SlotQueue;
  /** The model's files, for a vocabulary-only tokenizer beside a load on another build. */
  files: Blob[];
  /** That tokenizer (`vocab-tokenizer.ts`), started by the first token request; ended with the model. */
  tokenizer?: Promise<Wllama>;
}

export type Resident = LoadedWllama & ResidencyState;

/** What the parts of the wllama engine share: its options, the resident model, the clock, the slots. */
export interface WllamaRuntime {
  options: WllamaEngineOptions;
  residency: Residency<LoadedWllama>;
  clock: () => number;
  /** Parallel slots of every load. */
  parallel: number;
}
