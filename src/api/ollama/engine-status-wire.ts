import type { GpuAdapterReport } from '../../engine/wire.js';

/** The compute path, as `GET /api/lmtab/engine` spells it (the wire shape, apart from the engine's). */
export interface EngineInfoBody {
  engine: string;
  backend: 'webgpu' | 'wasm';
  build?: string;
  adapter?: string;
  threads: number;
  gpuLayers: number;
  crossOriginIsolated: boolean;
  fallbackReason?: string;
  /** Why a CPU load runs on another build than lmtab's. */
  buildReason?: string;
  /** Why the model was loaded with a longer context than asked. */
  contextReason?: string;
  kvCache?: string;
  kernels?: 'relaxed-simd' | 'simd128';
  /** The WebGPU adapter: vendor, architecture, features, key limits. */
  gpu?: GpuAdapterReport;
  /** llama.cpp's backend lines of the load (offloaded layers, adapter, graph splits). */
  backendLines?: string[];
  graphSplits?: number;
  /** The last GPU device loss. */
  gpuLost?: { at: number; line: string };
  /** A loaded model's media besides text (images in, audio in, speech out, realtime audio). */
  media?: { images: boolean; audioInput: boolean; audioOutput: boolean; realtime: boolean };
}

/** A resident model, as `GET /api/lmtab/engine` lists it. */
export interface LoadedModelBody {
  model: string;
  sizeBytes: number;
  contextLength: number;
  parallel: number;
  active: number;
  info: EngineInfoBody;
  expiresAt: number;
}

/** What `GET /api/lmtab/engine` answers: the compute path and the models in memory. */
export interface EngineStatusBody extends EngineInfoBody {
  loaded: LoadedModelBody[];
}
