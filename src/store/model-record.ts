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
  | { kind: 'hub'; repo: string; revision: string; quantization: string; endpoint: string };

/** Settings of a custom model made from a Modelfile (issue 6); applied wherever it runs. */
export interface ModelCustomization {
  /** The model this one is made from. */
  from: string;
  /** Go text/template prompt template. */
  template?: string;
  system?: string;
  /** Default sampling parameters (Ollama names), overridden by request fields. */
  parameters: Record<string, number | string | string[]>;
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  license?: string;
}

/** A model in the store. */
export interface ModelRecord {
  /** The name used in API requests (`model`), unique in the store. */
  id: string;
  source: ModelSource;
  /** The model's GGUF file(s); split files in order. */
  files: StoredFile[];
  /** The vision projector (mmproj), when the model takes images. */
  projector?: StoredFile;
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

/** Whether every file of a record is stored. */
export function isComplete(record: ModelRecord): boolean {
  return record.files.every((f) => f.complete) && (record.projector?.complete ?? true);
}
