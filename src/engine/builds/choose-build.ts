import type { GgufMetadataValue } from '../../store/index.js';
import { buildNames } from './cpu-build.js';
import type { EngineSettings } from '../engine.js';
import { kvCacheParams, type HeadLengths } from './kv-cache.js';
import { assertCpuFit, memoryNeed } from '../memory/memory-fit.js';

type Metadata = Map<string, GgufMetadataValue>;

/**
 * Projectors lmtab's CPU build cannot run (its llama.cpp predates them, wasm/README.md): a CPU load
 * with one runs on wllama's stock build, which knows them, and says why.
 */
const stockOnlyProjectors = new Set(['lfm3vl']);

/** What decides which build runs a load. */
export interface BuildChoiceInput {
  /** The planned backend. */
  backend: 'wasm' | 'webgpu';
  /** The model's id, for the refusal's message. */
  label: string;
  /** Bytes of each file the load reads (the model's parts, then its projector). */
  fileBytes: number[];
  /** The model's GGUF metadata. */
  metadata: Metadata;
  /** The projector's GGUF metadata, when the model has one. */
  projector?: Metadata;
  contextLength: number;
  /** The attention heads' key and value lengths (undefined for a model without attention). */
  heads: HeadLengths | undefined;
  /** The person's KV cache choice (`auto` by default). */
  kvCache?: EngineSettings['kvCache'];
  /** What this device and page have: lmtab's CPU build (unless the person chose wllama's), memory64. */
  device: { lmtabBuild: boolean; memory64: boolean };
}

/** The build a load runs on (a `buildNames` value), and why when it is not the one expected. */
export interface BuildChoice {
  build: (typeof buildNames)[keyof typeof buildNames];
  reason?: string;
}

/**
 * Chooses the build for a load, or refuses it with the sizes (`model_too_large`) where no CPU build
 * can hold it. WebGPU loads run wllama's stock build (the one with llama.cpp's WebGPU backend). A CPU
 * load runs on lmtab's wasm32 build; on wllama's stock build where its projector needs a newer
 * llama.cpp or audio (which only that build serves) or where lmtab's build is not given; past what
 * wasm32 holds, on wllama's memory64 build (with llama.cpp's F16 cache).
 */
export function chooseBuild(input: BuildChoiceInput): BuildChoice {
  if (input.backend === 'webgpu') return { build: buildNames.stock };
  const need = (kvBytesPerValue: number) =>
    memoryNeed({
      fileBytes: input.fileBytes,
      metadata: input.metadata,
      contextLength: input.contextLength,
      kvBytesPerValue,
    });
  const reason = stockReason(input.projector);
  if (input.device.lmtabBuild && reason !== undefined) {
    assertCpuFit(input.label, need(2), { memory64: false });
    return { build: buildNames.stock, reason };
  }
  const build = input.device.lmtabBuild ? buildNames.cpu : buildNames.stock;
  const quantized = kvCacheParams({ build }, input.heads, input.kvCache).cache_type_k === 'q8_0';
  const device = { memory64: input.device.memory64 };
  if (assertCpuFit(input.label, need(quantized ? 34 / 32 : 2), device) === 'wasm32')
    return { build };
  assertCpuFit(input.label, need(2), device);
  return { build: buildNames.memory64 };
}

/** Why a projector needs wllama's stock build, if it does. */
function stockReason(projector: Metadata | undefined): string | undefined {
  const type = String(projector?.get('clip.projector_type') ?? '');
  if (stockOnlyProjectors.has(type)) {
    return `its ${type} projector is newer than lmtab's CPU build's llama.cpp; wllama 3.13.0's build runs it, with generic kernels`;
  }
  if (
    projector?.get('clip.has_audio_encoder') === true ||
    projector?.get('clip.has_gen_audio_encoder') === true
  ) {
    return `its projector works with audio, which wllama 3.13.0's build serves (transcription, speech, audio in chats) and lmtab's CPU build's glue (wllama 3.8.1) does not; it runs with generic kernels`;
  }
  return undefined;
}
