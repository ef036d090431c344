import type { ModelCustomization } from '../modelfile/index.js';
import type { Sha256State } from './sha256.js';

/** What the store knows of a model, read from its GGUF header. */
export interface GgufSummary {
  /** `general.architecture`, e.g. `lfm2`, `lfm2moe`. */
  architecture: string;
  /** `general.name`, when present. */
  name?: string;
  /** Sum of all tensor element counts. */
  parameterCount: number;
  /** `{arch}.context_length` (tokens). */
  contextLength?: number;
  /** `{arch}.embedding_length`. */
  embeddingLength?: number;
  /** `{arch}.block_count`. */
  blockCount?: number;
  /** Quantization name from `general.file_type` (e.g. `Q4_K_M`), else the most common tensor type. */
  quantization: string;
  /** `tokenizer.chat_template`, when present. */
  chatTemplate?: string;
  /** `{arch}.expert_count`, for mixture-of-experts models. */
  expertCount?: number;
  /** `general.type` (`model`, or `mmproj` for a vision projector). */
  fileKind: 'model' | 'mmproj';
  /** For a projector: `clip.projector_type`. */
  projectorType?: string;
  /** `{arch}.pooling_type` (llama.cpp: 0 none, 1 mean, 2 cls, 3 last, 4 rank): an embedding model. */
  poolingType?: number;
}

/** One file of a model held in the store as chunks. */
export interface StoredFile {
  /** Key prefix of this file's chunks. */
  fileId: string;
  /** File name, e.g. `LFM2-350M-Q4_K_M.gguf`. */
  name: string;
  /** Total size in bytes. */
  size: number;
  /** Lower-case hex sha256 of the whole file, when known. */
  sha256?: string;
  /** Bytes per stored chunk (the last one may be shorter). */
  chunkSize: number;
  /** Chunks stored so far (a download resumes from here). */
  chunks: number;
  /** Whether every byte is stored (and verified, when a digest was known). */
  complete: boolean;
  /** Where a download fetches the file (the hub's `resolve` URL at a pinned commit); absent for imports. */
  url?: string;
  /** While downloading: the sha256 state after the stored chunks, so a resume hashes only new bytes. */
  hashState?: Sha256State;
}

/** Where a model came from. */
export type ModelSource =
  | { kind: 'import'; fileName: string }
  | { kind: 'hub'; repo: string; revision: string; quantization: string; endpoint: string }
  | MlcSource;

/**
 * An MLC model from web-llm's catalog, downloaded into the store; what web-llm needs to load it
 * from there (its model record, with URLs pointing at the stored files).
 */
export interface MlcSource {
  kind: 'mlc';
  /** web-llm's `model_id` in its catalog, e.g. `Qwen2.5-0.5B-Instruct-q4f32_1-MLC`. */
  catalogId: string;
  /** Where the weights came from (`.../resolve/main/`). */
  modelUrl: string;
  /** Where the compiled model library came from. */
  modelLibUrl: string;
  /** Name of the stored file holding the model library (WebAssembly with WebGPU kernels). */
  libFile: string;
  /** Name of the stored `mlc-model-manifest.json`, for models web-llm loads through one. */
  manifestFile?: string;
  /** WebGPU features the model needs, e.g. `shader-f16`. */
  requiredFeatures: string[];
  /** Whether the model reads images (web-llm's `ModelType.VLM`). */
  vision: boolean;
  /** Overrides of `mlc-chat-config.json` from the catalog entry (web-llm's `overrides`). */
  overrides?: Record<string, unknown>;
  /** SRI hashes of the config, library and tokenizer from the catalog; web-llm checks them at load. */
  integrity?: Record<string, unknown>;
}

/** How a model's files are laid out, which picks the engine that runs it. */
export type ModelFormat = 'gguf' | 'mlc';

/** A model in the store. */
export interface ModelRecord {
  /** The name used in API requests (`model`), unique in the store. */
  id: string;
  /** `gguf` (wllama) or `mlc` (web-llm); absent on records stored before MLC models: `gguf`. */
  format?: ModelFormat;
  source: ModelSource;
  /** The model's GGUF file(s), split files in order; for MLC, every artifact (config, shards, library). */
  files: StoredFile[];
  /** The vision projector (mmproj), when the model takes images. */
  projector?: StoredFile;
  /** Facts about the model; for MLC, read from `mlc-chat-config.json` and `tensor-cache.json`. */
  gguf: GgufSummary;
  /** Total bytes of all files. */
  sizeBytes: number;
  /** sha256 of the first model file, when known (shown as the model's ID). */
  digest?: string;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Epoch milliseconds of the last load. */
  lastUsedAt?: number;
  customization?: ModelCustomization;
  /** An unfinished download the person paused: it is not resumed when the page starts. */
  paused?: boolean;
}

/** A record's files, the projector last. */
export function filesOf(record: ModelRecord): StoredFile[] {
  return [...record.files, ...(record.projector ? [record.projector] : [])];
}

/** Bytes of a file already stored (whole chunks). */
export function storedBytes(file: StoredFile): number {
  return file.complete ? file.size : Math.min(file.size, file.chunks * file.chunkSize);
}

/** Whether every file of a record is stored. */
export function isComplete(record: ModelRecord): boolean {
  return record.files.every((f) => f.complete) && (record.projector?.complete ?? true);
}

/** The format of a record; records stored before MLC models existed are GGUF. */
export function modelFormat(record: ModelRecord): ModelFormat {
  return record.format ?? 'gguf';
}

/**
 * Whether a record is a pull of the hub repository `repo` (any case) as the hub gave it: not a
 * custom model made from one, which shares its files and source but answers with its own settings.
 */
export function isHubPull(record: ModelRecord, repo: string): boolean {
  return (
    record.source.kind === 'hub' &&
    record.source.repo.toLowerCase() === repo.toLowerCase() &&
    record.customization === undefined
  );
}
