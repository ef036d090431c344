import type { EngineInfo, GpuAdapterReport, LoadedModel } from '../../engine/index.js';
import { omitUndefined } from '../pipeline/omit-undefined.js';

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

/** Copies the fields the wire promises, so that a new engine field never leaks out by itself. */
function infoBody(info: EngineInfo): EngineInfoBody {
  return omitUndefined({
    engine: info.engine,
    backend: info.backend,
    build: info.build,
    adapter: info.adapter,
    threads: info.threads,
    gpuLayers: info.gpuLayers,
    crossOriginIsolated: info.crossOriginIsolated,
    fallbackReason: info.fallbackReason,
    buildReason: info.buildReason,
    contextReason: info.contextReason,
    kvCache: info.kvCache,
    kernels: info.kernels,
    gpu: info.gpu && omitUndefined({ ...info.gpu, features: [...info.gpu.features] }),
    backendLines: info.backendLines && [...info.backendLines],
    graphSplits: info.graphSplits,
    gpuLost: info.gpuLost && { ...info.gpuLost },
    media: info.media && { ...info.media },
  }) as EngineInfoBody;
}

/** The body of `GET /api/lmtab/engine` from the engine's own types. */
export function engineStatusBody(
  info: EngineInfo,
  loaded: readonly LoadedModel[],
): EngineStatusBody {
  return {
    ...infoBody(info),
    loaded: loaded.map((model) => ({
      model: model.model,
      sizeBytes: model.sizeBytes,
      contextLength: model.contextLength,
      parallel: model.parallel,
      active: model.active,
      info: infoBody(model.info),
      expiresAt: model.expiresAt,
    })),
  };
}
