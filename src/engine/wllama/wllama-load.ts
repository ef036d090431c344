import type { LoadedContextInfo, Wllama } from '@wllama/wllama/esm/index.js';
import { readGgufHeader } from '../../store/index.js';
import type { ModelBlobs, ModelRecord } from '../../store/index.js';
import type { EngineInfo } from '../engine.js';
import { buildNames, createWllamaFor, kernelsFromLog } from '../builds/cpu-build.js';
import {
  headLengths,
  kvCacheFromLog,
  kvCacheParams,
  type HeadLengths,
} from '../builds/kv-cache.js';
import { buffersFromLog } from '../memory/engine-buffers.js';
import { loadWllama } from './load-wllama.js';
import { chooseBuild } from '../builds/choose-build.js';
import { memory64Resources, memory64Supported } from '../builds/memory64-build.js';
import { LogRing } from '../log-ring.js';
import { BackendRecord } from '../gpu/backend-record.js';
import { watchGpu } from '../gpu/gpu-worker-prologue.js';
import { confirmBackend } from '../gpu/plan-backend.js';
import { SlotQueue } from '../slot-queue.js';
import { continuationTokens, partialCharacterTokens, unsafeByteTokens } from './utf8-guard.js';
import { findToolCallStart, findUnusedThinkStart } from './wllama-params.js';
import type { LoadedWllama, WllamaEngineOptions } from './wllama-runtime.js';

/** A WebGPU plan moved to the CPU, saying why. */
function onCpu(planned: EngineInfo, reason: string): EngineInfo {
  return { ...planned, backend: 'wasm', adapter: undefined, gpuLayers: 0, fallbackReason: reason };
}

/**
 * What a loaded model takes and gives besides text, as llama.cpp says once it has read the
 * projector; undefined for a model without one.
 */
function mediaOf(wllama: Wllama): EngineInfo['media'] {
  const context = wllama.getLoadedContextInfo() as Partial<LoadedContextInfo>;
  const media = {
    images: wllama.supportInputModality('image'),
    audioInput: context.has_audio_input === true,
    audioOutput: context.has_audio_output === true,
    realtime: context.has_audio_stream === true,
  };
  return Object.values(media).some(Boolean) ? media : undefined;
}

/** What a load needs of the engine around it. */
export interface WllamaLoaderDeps {
  options: WllamaEngineOptions;
  parallel: number;
  /** The backend the next load plans for (WebGPU when an adapter has what llama.cpp needs). */
  plannedInfo(): Promise<EngineInfo>;
  /** A load's GPU device was lost (its backend's log said so). */
  gpuLost(backend: BackendRecord, line: string): void;
  /** Why a model is about to load with a longer context than asked, by model id. */
  contextReasons: ReadonlyMap<string, string>;
}

/**
 * Loads a stored model into a new wllama instance: plans the backend, chooses the build (or refuses
 * the load with the sizes), starts it on WebGPU and falls back to the CPU where llama.cpp refuses
 * the adapter, and reads what the load's log says (offload, KV cache, kernels, buffers).
 */
export function createWllamaLoader(deps: WllamaLoaderDeps) {
  const { options, parallel, plannedInfo, gpuLost, contextReasons } = deps;

  async function start(
    record: ModelRecord,
    blobs: ModelBlobs,
    planned: EngineInfo,
    contextLength: number,
    heads: HeadLengths | undefined,
  ) {
    const log = new LogRing(200);
    const backend: BackendRecord = new BackendRecord(log, {
      onGpuLost: (line) => gpuLost(backend, line),
    });
    const memory64 =
      planned.build === buildNames.memory64 && options.stockGlueCode !== undefined
        ? await memory64Resources(
            options.wasmUrl,
            options.stockGlueCode,
            options.cpuBuild?.memory64KernelsUrl,
          )
        : undefined;
    const config = { logger: backend.logger(), allowOffline: true };
    const { wllama, info } = createWllamaFor(
      planned,
      options.wasmUrl,
      planned.build === buildNames.stock ? undefined : options.cpuBuild,
      config,
      memory64,
    );
    const gpuWatched =
      info.backend === 'webgpu' &&
      info.build === buildNames.stock &&
      options.stockGlueCode !== undefined &&
      watchGpu(wllama, options.wasmUrl, options.stockGlueCode);
    await loadWllama(
      wllama,
      blobs.projector ? [...blobs.model, blobs.projector] : blobs.model,
      {
        n_ctx: contextLength,
        n_parallel: parallel,
        n_threads: info.threads,
        n_gpu_layers: info.gpuLayers,
        ...kvCacheParams(info, heads, options.kvCache),
      },
      { log, label: record.id, info },
    );
    const kvCache = kvCacheFromLog(log.lines());
    const kernels = kernelsFromLog(log.lines());
    const buffers = buffersFromLog(log.lines());
    return {
      wllama,
      log,
      backend,
      gpuWatched,
      info: {
        ...confirmBackend(info, backend.lines()),
        ...(kvCache && { kvCache }),
        ...(kernels && { kernels }),
        ...(buffers && { buffers }),
      },
    };
  }

  async function loadRecord(record: ModelRecord, contextLength: number): Promise<LoadedWllama> {
    const planned = await plannedInfo();
    // Read once: a WebGPU refusal loads the same files again on the CPU.
    const blobs = await options.store.open(record.id);
    const { metadata } = await readGgufHeader(blobs.model[0]!);
    const heads = headLengths(metadata);
    const projector = blobs.projector
      ? (await readGgufHeader(blobs.projector)).metadata
      : undefined;
    // The CPU build that holds a CPU load, or a refusal with the sizes before the engine starts.
    const onCpuBuild = (info: EngineInfo): EngineInfo => {
      const { build, reason } = chooseBuild({
        backend: 'wasm',
        label: record.id,
        fileBytes: (blobs.projector ? [...blobs.model, blobs.projector] : blobs.model).map(
          (f) => f.size,
        ),
        metadata,
        projector,
        contextLength,
        heads,
        kvCache: options.kvCache,
        device: {
          lmtabBuild: options.cpuBuild !== undefined,
          memory64: options.stockGlueCode !== undefined && memory64Supported(),
        },
      });
      return { ...info, build, ...(reason !== undefined && { buildReason: reason }) };
    };
    const plan = planned.backend === 'wasm' ? onCpuBuild(planned) : planned;
    let started;
    try {
      started = await start(record, blobs, plan, contextLength, heads);
    } catch (error) {
      if (plan.backend !== 'webgpu') throw error;
      // llama.cpp's WebGPU backend refuses some adapters (no shader-f16, small limits): use the CPU.
      const fallback = onCpu(plan, error instanceof Error ? error.message : String(error));
      started = await start(record, blobs, onCpuBuild(fallback), contextLength, heads);
    }
    await options.store.touch(record.id);
    const media = mediaOf(started.wllama);
    if (media !== undefined) started.info = { ...started.info, media };
    const contextReason = contextReasons.get(record.id);
    if (contextReason !== undefined) {
      started.log.push(`lmtab: ${record.id} loads with ${contextReason}`);
      started.info = { ...started.info, contextReason };
    }
    return {
      model: record.id,
      wllama: started.wllama,
      log: started.log,
      backend: started.backend,
      gpuWatched: started.gpuWatched,
      unsafeTokens: unsafeByteTokens(metadata),
      toolCallStart: findToolCallStart(metadata.get('tokenizer.ggml.tokens')),
      unusedThinkStart: findUnusedThinkStart(
        metadata.get('tokenizer.ggml.tokens'),
        String(metadata.get('tokenizer.chat_template') ?? ''),
      ),
      // wllama's stock build cannot serialize any partial character as a logprob alternative.
      continuationTokens:
        started.info.build === buildNames.cpu
          ? continuationTokens(metadata)
          : partialCharacterTokens(metadata),
      info: started.info,
      sizeBytes: record.sizeBytes,
      contextLength,
      slots: new SlotQueue(parallel),
      files: blobs.model,
    };
  }

  return loadRecord;
}
