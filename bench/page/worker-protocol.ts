import type {
  EngineInfo,
  GenerateEvent,
  GenerateRequest,
  LoadedModel,
} from '../../src/engine/index.js';

/** Settings of the wllama engine the bench worker runs. */
export interface WllamaBenchConfig {
  /** WebAssembly threads. */
  threads: number;
  /** Build for CPU loads: lmtab's (`lmtab-cpu`) or wllama's stock one; default the app's choice. */
  build?: 'lmtab-cpu' | 'stock';
  /** Layers offloaded to WebGPU; 0 = CPU only, absent = all when an adapter exists. */
  gpuLayers?: number;
  /** Parallel slots; default the engine's (4). */
  parallel?: number;
  /** Context length in tokens; default the engine's (4096). */
  contextLength?: number;
}

/** Calls the bench page makes on the bench worker, each answered by id. */
export type WorkerCall =
  | { op: 'configure'; config: WllamaBenchConfig }
  | { op: 'load'; model: string }
  | { op: 'unload' }
  | { op: 'generate'; request: GenerateRequest };

/** Messages the page sends the bench worker. */
export type ToWorker = { type: 'connect' } | { type: 'call'; id: number; call: WorkerCall };

/** Messages the bench worker sends the page. */
export type FromWorker =
  | { type: 'result'; id: number; value: EngineInfo | LoadedModel | null }
  | { type: 'event'; id: number; event: GenerateEvent }
  | { type: 'error'; id: number; message: string };
