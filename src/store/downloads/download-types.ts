import type { ChunkWriter } from '../idb/idb-model-store.js';
import type { ModelRecord, ModelSource } from '../model-record.js';
import type { ModelStore } from '../store.js';

/** One file to download. */
export interface DownloadFile {
  /** Path inside the repository, shown to people and kept in the record. */
  name: string;
  /** URL that answers byte ranges (the hub's `resolve` URL, best at a pinned commit). */
  url: string;
  /** Size in bytes, from the hub's listing. */
  size: number;
  /** Lower-case hex sha256 from the listing (`lfs.oid`); without one the file cannot be verified. */
  sha256?: string;
}

/** What to download: a model's files, stored together as one record. */
export interface DownloadRequest {
  /** The record's id, `hf.co/ORG/REPO:QUANT`. */
  id: string;
  /** Where the files come from, kept in the record. */
  source: ModelSource;
  /** The model file, or its split parts in order. */
  files: DownloadFile[];
  /** The vision projector fetched along with the model. */
  projector?: DownloadFile;
}

/** What a download needs of the store. */
export type DownloadStore = Pick<ModelStore, 'get' | 'delete'> & ChunkWriter;

/** Options of {@link downloadModel}. */
export interface DownloadOptions {
  /** Where the chunks and the record go. */
  store: DownloadStore;
  /** Stops the download; what is stored stays, and a later call resumes from it. */
  signal?: AbortSignal;
  /** Extra headers for a request to `url` (the hub token); asked per request. Default none. */
  headers?: (url: string) => Record<string, string>;
  /**
   * Bytes per stored chunk of a new file; default a 32nd of the file rounded up to a power of two,
   * from 64 KiB to 16 MiB, so a cut loses at most about 3% of a file and one chunk fits in memory.
   */
  chunkSize?: number;
  /** Retries of a failed request or cut connection in a row without new bytes; default {@link downloadDefaults}. */
  retries?: number;
  /** Milliseconds before the first retry, doubling up to 30 s; default {@link downloadDefaults}. */
  retryDelayMs?: number;
  /** Milliseconds between progress events; default {@link downloadDefaults}. */
  progressIntervalMs?: number;
  /** The `fetch` to use; default the global one. */
  fetch?: typeof fetch;
  /** Epoch milliseconds now; default `Date.now`. */
  clock?: () => number;
  /** Checks that `bytes` more fit in the origin's quota; default `ensureSpace` (storage-space.ts). */
  ensureSpace?: (bytes: number) => Promise<void>;
}

/** Progress of a download, yielded as it goes. */
export type DownloadEvent =
  | {
      type: 'start';
      id: string;
      files: { name: string; size: number; sha256?: string }[];
      /** Bytes already stored by an earlier, interrupted run. */
      bytes: number;
      total: number;
    }
  | {
      type: 'progress';
      id: string;
      /** The file being fetched. */
      file: string;
      fileBytes: number;
      fileSize: number;
      /** Bytes of all files stored or arrived so far. */
      bytes: number;
      total: number;
      /** Bytes per second over the last seconds, once known. */
      rate?: number;
      /** Seconds left at that rate, once known. */
      secondsLeft?: number;
    }
  | {
      type: 'retry';
      id: string;
      file: string;
      /** 1 for the first retry in a row. */
      attempt: number;
      /** Milliseconds until the retry (0 when waiting for the browser to come back online). */
      delayMs: number;
      /** Byte of the file the retry asks for: the end of the last stored chunk. */
      resumeFrom: number;
      reason: string;
    }
  | { type: 'verified'; id: string; file: string; sha256: string; checked: boolean }
  | {
      type: 'done';
      id: string;
      record: ModelRecord;
      /** Bytes this run fetched from the network (what a resume did not have to fetch again). */
      fetchedBytes: number;
      /** True when the model was already complete and nothing was fetched. */
      alreadyStored: boolean;
    };
