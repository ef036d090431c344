import type { ModelCustomization } from '../modelfile/index.js';
import type { ModelRecord } from './model-record.js';

/** Progress of a long store operation (import, download), yielded as it goes. */
export type StoreProgress =
  | {
      type: 'progress';
      /** File being written. */
      file: string;
      /** Bytes stored so far of this file. */
      bytes: number;
      /** Total bytes of this file. */
      total: number;
    }
  | { type: 'done'; record: ModelRecord };

/** Options of {@link ModelStore.importFiles}. */
export interface ImportOptions {
  /** Name to store the model under; default: the file name without `.gguf`, lower-cased. */
  id?: string;
  /** A vision projector (mmproj GGUF) stored with the model. */
  projector?: File;
  signal?: AbortSignal;
}

/** Options of {@link ModelStore.importStream}. */
export interface StreamImportOptions {
  /** Name to store the model under. */
  id: string;
  /** File name recorded for the model file, e.g. `sha256-HEX.gguf`. */
  fileName: string;
  /** The lower-case hex sha256 the bytes must have; other bytes are refused and nothing is kept. */
  sha256?: string;
  /** Bytes announced (a Content-Length), checked against the storage quota before writing. */
  size?: number;
  signal?: AbortSignal;
}

/** What {@link ModelStore.compose} makes a model of. */
export interface ModelParts {
  /** The stored model whose model file(s) the new one uses; the GGUF facts come with them. */
  weightsOf: string;
  /** The name the new model gives its model file (its source); default the stored file's name. */
  fileName?: string;
  /** The vision projector: another stored model's (shared), a file to store, or none when absent. */
  projector?: { of: string } | { file: File };
  /** The Modelfile settings; none when absent. */
  customization?: ModelCustomization;
  signal?: AbortSignal;
}

/** The model files of a stored model, ready for an engine. */
export interface ModelBlobs {
  /** The model file(s), split parts in order. */
  model: Blob[];
  projector?: Blob;
}

/** The model store (IndexedDB in the browser). */
export interface ModelStore {
  /** Every model, newest first. */
  list(): Promise<ModelRecord[]>;
  /** One model by id, or undefined. */
  get(id: string): Promise<ModelRecord | undefined>;
  /** Imports a local GGUF file (and optional projector). */
  importFiles(file: File, options?: ImportOptions): AsyncIterable<StoreProgress>;
  /**
   * Stores a GGUF model file as its bytes arrive (an upload), hashing as it goes: chunks are written
   * while the stream is read, never the whole file held. The record is saved only once every byte
   * is stored and the digest matches; on any failure (digest, not a GGUF, quota, the stream erring
   * or `signal` aborting) the chunks written are deleted and the error rethrown.
   */
  importStream(
    source: ReadableStream<Uint8Array>,
    options: StreamImportOptions,
  ): Promise<ModelRecord>;
  /**
   * Stores a model made of parts: another stored model's weights (shared, never copied), a vision
   * projector or none, and Modelfile settings or none; nothing else of the model lending the
   * weights comes along. The record is written whole over any of the same id.
   */
  compose(id: string, parts: ModelParts): Promise<ModelRecord>;
  /**
   * Stores a custom model made from another one (a Modelfile's `FROM model`): it shares the base
   * model's files, its projector included, as Ollama's layers are.
   */
  createCustom(id: string, customization: ModelCustomization): Promise<ModelRecord>;
  /** Copies a model under a new name, sharing its files. */
  copy(source: string, destination: string): Promise<ModelRecord>;
  /** Deletes a model and every chunk no other record uses; false when there was none. */
  delete(id: string): Promise<boolean>;
  /** The stored files of a complete model. */
  open(id: string): Promise<ModelBlobs>;
  /** Records that a model was just used. */
  touch(id: string): Promise<void>;
}
