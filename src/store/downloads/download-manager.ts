import { LmtabError, toLmtabError } from '../../errors/index.js';
import type { LmtabErrorCode } from '../../errors/index.js';
import { downloadModel } from './download-model.js';
import type { DownloadOptions, DownloadRequest, DownloadStore } from './download-model.js';
import type { ModelRecord } from '../model-record.js';
import { resumeRequest } from './resume-request.js';

/** Milliseconds a download keeps asking for its lock on start (a reload's page may hold it). */
export const defaultLockWaitMs = 5000;

/** Where a download stands. */
export type DownloadStatus = 'downloading' | 'retrying' | 'paused' | 'failed' | 'done';

/** One download as the UI shows it. */
export interface DownloadState {
  /** The model's id, `hf.co/ORG/REPO:QUANT`. */
  id: string;
  status: DownloadStatus;
  /** Every file of the download (model parts, then the projector). */
  files: { name: string; size: number }[];
  /** The file being fetched. */
  file?: string;
  /** Bytes stored or arrived so far, of all files. */
  bytes: number;
  total: number;
  /** Bytes per second, while downloading and once known. */
  rate?: number;
  /** Seconds left at that rate. */
  secondsLeft?: number;
  /** What the downloader is waiting for, e.g. a retry after a cut connection. */
  note?: string;
  /** Why it stopped, when it failed. */
  error?: { code: LmtabErrorCode; message: string };
  /** Bytes fetched from the network by the latest run (a resume fetches only what is missing). */
  fetchedBytes?: number;
  /** The stored model, once done. */
  record?: ModelRecord;
}

/** Options of {@link DownloadManager}. */
export interface DownloadManagerOptions extends Omit<DownloadOptions, 'signal' | 'store'> {
  /** Where downloads go. */
  store: DownloadStore;
  /** Resume unfinished downloads (not paused ones) when {@link DownloadManager.start} runs; default true. */
  autoResume?: boolean;
  /**
   * Milliseconds to keep asking for a download's lock on start, when the previous page (a reload)
   * has not let it go yet; default {@link defaultLockWaitMs}.
   */
  lockWaitMs?: number;
}

interface Entry {
  state: DownloadState;
  request?: DownloadRequest;
  controller?: AbortController;
  running?: Promise<void>;
}

/**
 * The page's downloads: starts, pauses, resumes and cancels them, lists unfinished ones from the
 * store when the page starts (so a reload shows and resumes them), and fires `change` (an Event)
 * on every update and `downloaded` (a CustomEvent with the record) when one completes. One per page.
 */
export class DownloadManager extends EventTarget {
  private readonly entries = new Map<string, Entry>();
  private readonly options: DownloadManagerOptions;
  private started: Promise<void> | undefined;

  constructor(options: DownloadManagerOptions) {
    super();
    this.options = options;
  }

  /** Loads unfinished downloads from the store and resumes the ones not paused; runs once. */
  start(): Promise<void> {
    this.started ??= this.load();
    return this.started;
  }

  /** Every download, in the order they started. */
  list(): DownloadState[] {
    return [...this.entries.values()].map((entry) => entry.state);
  }

  /** One download, or undefined. */
  get(id: string): DownloadState | undefined {
    return this.entries.get(id)?.state;
  }

  /** Starts a download (or continues one of the same id from its stored chunks). */
  download(request: DownloadRequest): void {
    const entry = this.entries.get(request.id);
    if (entry?.running !== undefined) return;
    const files = [...request.files, ...(request.projector ? [request.projector] : [])];
    const next: Entry = entry ?? {
      state: {
        id: request.id,
        status: 'downloading',
        files: files.map(({ name, size }) => ({ name, size })),
        bytes: 0,
        total: files.reduce((sum, file) => sum + file.size, 0),
      },
    };
    next.request = request;
    this.entries.set(request.id, next);
    this.run(next);
  }

  /** Stops a download, keeping what is stored; it stays paused across reloads. */
  async pause(id: string): Promise<void> {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    entry.controller?.abort(new LmtabError('aborted', `Paused ${id}.`));
    await entry.running;
    const record = await this.options.store.get(id);
    if (record !== undefined && entry.state.status !== 'done') {
      await this.options.store.putRecord({ ...record, paused: true });
    }
    if (entry.state.status !== 'done') this.update(entry, { status: 'paused', note: undefined });
  }

  /** Continues a paused or failed download from its stored chunks. */
  async resume(id: string): Promise<void> {
    const entry = this.entries.get(id);
    if (entry === undefined || entry.running !== undefined) return;
    const record = await this.options.store.get(id);
    const request = record === undefined ? entry.request : resumeRequest(record);
    if (request === undefined) return;
    entry.request = request;
    this.run(entry);
  }

  /** Stops a download and deletes everything it stored. */
  async cancel(id: string): Promise<void> {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    entry.controller?.abort(new LmtabError('aborted', `Cancelled ${id}.`));
    await entry.running;
    const record = await this.options.store.get(id);
    // A finished model is deleted in My Models, not here.
    if (record !== undefined && entry.state.status !== 'done') await this.options.store.delete(id);
    this.entries.delete(id);
    this.changed();
  }

  /** Removes a finished or failed download from the list (the stored model stays). */
  dismiss(id: string): void {
    const entry = this.entries.get(id);
    if (entry === undefined || entry.running !== undefined) return;
    this.entries.delete(id);
    this.changed();
  }

  private async load(): Promise<void> {
    const partials = await this.options.store.partials();
    for (const record of partials) {
      if (this.entries.has(record.id) || record.source.kind !== 'hub') continue;
      const files = [...record.files, ...(record.projector ? [record.projector] : [])];
      const entry: Entry = {
        state: {
          id: record.id,
          status: 'paused',
          files: files.map(({ name, size }) => ({ name, size })),
          bytes: files.reduce(
            (sum, f) => sum + (f.complete ? f.size : Math.min(f.size, f.chunks * f.chunkSize)),
            0,
          ),
          total: files.reduce((sum, file) => sum + file.size, 0),
        },
        request: resumeRequest(record),
      };
      this.entries.set(record.id, entry);
      if ((this.options.autoResume ?? true) && record.paused !== true) {
        this.run(entry, this.options.lockWaitMs ?? defaultLockWaitMs);
      }
    }
    this.changed();
  }

  private run(entry: Entry, lockWaitMs = 0): void {
    const request = entry.request;
    if (request === undefined) return;
    const controller = new AbortController();
    entry.controller = controller;
    this.update(entry, { status: 'downloading', error: undefined, note: undefined });
    entry.running = this.consume(entry, request, controller.signal, lockWaitMs).finally(() => {
      entry.running = undefined;
      entry.controller = undefined;
    });
  }

  private async consume(
    entry: Entry,
    request: DownloadRequest,
    signal: AbortSignal,
    lockWaitMs: number,
  ): Promise<void> {
    const deadline = Date.now() + lockWaitMs;
    for (;;) {
      try {
        for await (const event of downloadModel(request, { ...this.options, signal })) {
          if (event.type === 'start') {
            this.update(entry, { bytes: event.bytes, total: event.total, fetchedBytes: 0 });
          } else if (event.type === 'progress') {
            this.update(entry, {
              status: 'downloading',
              file: event.file,
              bytes: event.bytes,
              rate: event.rate,
              secondsLeft: event.secondsLeft,
              note: undefined,
            });
          } else if (event.type === 'retry') {
            const wait = event.delayMs > 0 ? ` in ${Math.ceil(event.delayMs / 1000)} s` : '';
            this.update(entry, {
              status: 'retrying',
              rate: undefined,
              secondsLeft: undefined,
              note: `Retrying${wait} from byte ${event.resumeFrom} of ${event.file}: ${event.reason}.`,
            });
          } else if (event.type === 'done') {
            this.update(entry, {
              status: 'done',
              bytes: entry.state.total,
              rate: undefined,
              secondsLeft: undefined,
              note: undefined,
              fetchedBytes: event.fetchedBytes,
              record: event.record,
            });
            this.dispatchEvent(new CustomEvent('downloaded', { detail: event.record }));
          }
        }
        return;
      } catch (error) {
        const failure = toLmtabError(error, 'download_failed');
        if (signal.aborted) return;
        // After a reload the previous page may hold the lock for a moment longer.
        if (failure.code === 'already_downloading' && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          continue;
        }
        if (failure.code === 'already_downloading') {
          // Another tab (or an /api/pull) has it: not a failure of the download itself.
          this.update(entry, { status: 'paused', note: failure.message });
          return;
        }
        this.update(entry, {
          status: 'failed',
          rate: undefined,
          secondsLeft: undefined,
          note: undefined,
          error: { code: failure.code, message: failure.message },
        });
        return;
      }
    }
  }

  private update(entry: Entry, patch: Partial<DownloadState>): void {
    const next: DownloadState = { ...entry.state, ...patch };
    for (const key of Object.keys(next) as (keyof DownloadState)[]) {
      if (next[key] === undefined) delete next[key];
    }
    entry.state = next;
    this.changed();
  }

  private changed(): void {
    this.dispatchEvent(new Event('change'));
  }
}
