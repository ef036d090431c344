import type { EngineInfo, LoadedModel } from '../../engine/index.js';
import type { EngineInfoBody, EngineStatusBody } from './engine-status-wire.js';
import { omitUndefined } from '../pipeline/omit-undefined.js';

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
