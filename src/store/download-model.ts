import { LmtabError } from '../errors/index.js';
import { acquireDownloadLock } from './download-lock.js';
import { readGgufHeader, readGgufSummary } from './gguf-header.js';
import type { ChunkWriter } from './idb-model-store.js';
import type { GgufSummary, ModelRecord, ModelSource, StoredFile } from './model-record.js';
import { isComplete } from './model-record.js';
import { RateMeter } from './rate-meter.js';
import { Sha256 } from './sha256.js';
import { ensureSpace, formatBytes } from './storage-space.js';
import type { ModelStore } from './store.js';

/** The defaults of a download's retries and progress events. */
export const downloadDefaults = {
  retries: 6,
  retryDelayMs: 1000,
  progressIntervalMs: 250,
} as const;

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
  /** Checks that `bytes` more fit in the origin's quota; default {@link ensureSpace}. */
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

const minChunk = 64 * 1024;
const maxChunk = 16 * 1024 * 1024;
const maxRetryDelayMs = 30_000;

/** A failure worth retrying: a cut connection, a 5xx or 429 answer. */
class Retryable extends Error {}

/**
 * Downloads a model's files into the store with `Range` requests: bytes are grouped into chunks,
 * each chunk is stored with the sha256 state after it, so a cut connection, a pause or a page
 * reload resumes at the last stored chunk without fetching or hashing anything twice. Each file's
 * sha256 is checked at its end; a mismatch deletes the whole download and throws
 * `checksum_mismatch`. The finished record carries the GGUF header's facts.
 */
export async function* downloadModel(
  request: DownloadRequest,
  options: DownloadOptions,
): AsyncGenerator<DownloadEvent, ModelRecord> {
  checkRequest(request);
  const { store, signal } = options;
  const clock = options.clock ?? Date.now;
  signal?.throwIfAborted();
  const release = await acquireDownloadLock(request.id);
  if (release === undefined) {
    throw new LmtabError(
      'already_downloading',
      `${request.id} is already downloading in another tab or request: expected no download of it in progress, found one. Wait for it to finish, or pause it there.`,
    );
  }
  try {
    let record = await store.get(request.id);
    if (record !== undefined && isComplete(record)) {
      yield { type: 'done', id: request.id, record, fetchedBytes: 0, alreadyStored: true };
      return record;
    }
    if (record !== undefined && !sameFiles(record, request)) {
      // An unfinished download of other files (the repository changed): it can never complete.
      await store.delete(record.id);
      record = undefined;
    }
    record ??= newRecord(request, options.chunkSize, clock());
    if (record.paused === true) record = { ...record, paused: undefined };
    const files = filesOf(record);
    const total = files.reduce((sum, file) => sum + file.size, 0);
    const stored = files.reduce((sum, file) => sum + storedBytes(file), 0);
    await (options.ensureSpace ?? ensureSpace)(total - stored);
    await store.putRecord(record);
    yield {
      type: 'start',
      id: record.id,
      files: files.map(({ name, size, sha256 }) => withoutUndefined({ name, size, sha256 })),
      bytes: stored,
      total,
    };

    const run: Run = {
      record,
      options,
      clock,
      meter: new RateMeter(),
      total,
      fetched: 0,
      lastReport: 0,
    };
    for (const file of files) {
      if (file.complete) continue;
      yield* fetchFile(run, file);
    }
    const gguf = await summarize(store, record);
    const finished: ModelRecord = withoutUndefined({
      ...record,
      gguf,
      digest: record.files[0]?.sha256,
      createdAt: clock(),
      paused: undefined,
    });
    await store.putRecord(finished);
    yield {
      type: 'done',
      id: finished.id,
      record: finished,
      fetchedBytes: run.fetched,
      alreadyStored: false,
    };
    return finished;
  } catch (error) {
    const stopped = signal?.aborted === true;
    if (!stopped) await dropIfEmpty(store, request.id);
    if (stopped && !(error instanceof LmtabError && error.code !== 'aborted')) {
      throw new LmtabError(
        'aborted',
        `The download of ${request.id} was stopped; what is stored so far stays, and it resumes from there.`,
        { cause: signal.reason ?? error },
      );
    }
    throw error;
  } finally {
    release();
  }
}

/** The state of one call of {@link downloadModel}. */
interface Run {
  record: ModelRecord;
  options: DownloadOptions;
  clock: () => number;
  meter: RateMeter;
  total: number;
  /** Bytes fetched from the network by this call. */
  fetched: number;
  lastReport: number;
}

async function* fetchFile(run: Run, file: StoredFile): AsyncGenerator<DownloadEvent, void> {
  const { options, record } = run;
  const retries = options.retries ?? downloadDefaults.retries;
  const firstDelay = options.retryDelayMs ?? downloadDefaults.retryDelayMs;
  if (file.url === undefined && storedBytes(file) < file.size) {
    throw new LmtabError(
      'invalid_request',
      `${record.id} cannot be downloaded: expected a URL for ${file.name} in its record, found none.`,
    );
  }
  if (file.chunks > 0 && file.hashState === undefined) {
    // Chunks without the hash state after them cannot be verified: fetch the file again.
    file.chunks = 0;
  }
  let failures = 0;
  for (;;) {
    const from = storedBytes(file);
    if (from >= file.size) break;
    try {
      yield* transfer(run, file, from);
      break;
    } catch (error) {
      if (options.signal?.aborted === true || !(error instanceof Retryable)) throw error;
      failures = storedBytes(file) > from ? 1 : failures + 1;
      const resumeFrom = storedBytes(file);
      if (failures > retries) {
        throw new LmtabError(
          'download_failed',
          `Downloading ${file.name} failed ${failures} times in a row: expected its bytes from ${formatBytes(resumeFrom)} on, got ${error.message}. The ${formatBytes(resumeFrom)} stored so far are kept; resume to continue.`,
          { cause: error },
        );
      }
      run.meter.reset();
      const offline = globalThis.navigator?.onLine === false;
      const delayMs = offline ? 0 : Math.min(firstDelay * 2 ** (failures - 1), maxRetryDelayMs);
      yield {
        type: 'retry',
        id: record.id,
        file: file.name,
        attempt: failures,
        delayMs,
        resumeFrom,
        reason: offline ? 'the browser is offline; waiting for the network' : error.message,
      };
      await (offline ? untilOnline(options.signal) : sleep(delayMs, options.signal));
    }
  }
  const actual = (
    file.hashState === undefined ? new Sha256() : Sha256.restore(file.hashState)
  ).digestHex();
  if (file.sha256 !== undefined && actual !== file.sha256) {
    await options.store.delete(record.id);
    throw new LmtabError(
      'checksum_mismatch',
      `${file.name} failed verification: expected sha256 ${file.sha256} (from the hub's file listing), got ${actual} from the ${formatBytes(file.size)} downloaded. The download was deleted; nothing of it is kept.`,
    );
  }
  const checked = file.sha256 !== undefined;
  file.sha256 = actual;
  file.complete = true;
  delete file.hashState;
  await options.store.putRecord(withoutUndefined(record));
  yield { type: 'verified', id: record.id, file: file.name, sha256: actual, checked };
}

/** Fetches `file` from byte `from` to its end, storing whole chunks as they fill. */
async function* transfer(run: Run, file: StoredFile, from: number): AsyncGenerator<DownloadEvent> {
  const { options, record } = run;
  const { store, signal } = options;
  const fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  const url = file.url ?? '';
  let response: Response;
  try {
    response = await fetchImpl(url, {
      headers: { ...options.headers?.(url), Range: `bytes=${from}-` },
      signal,
      cache: 'no-store',
    });
  } catch (error) {
    if (signal?.aborted === true) throw error;
    throw new Retryable(`no answer from ${new URL(url).origin} (${describe(error)})`, {
      cause: error,
    });
  }
  let skip = await checkResponse(response, file, from);
  const body = response.body;
  if (body === null) throw new Retryable(`an empty answer (HTTP ${response.status})`);
  const reader = body.getReader();
  // The hash restarts from the last stored chunk: bytes of a cut chunk are hashed again.
  const hash = file.hashState === undefined ? new Sha256() : Sha256.restore(file.hashState);
  const pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let position = from;
  let boundaryState = hash.save();

  const storeChunk = async (length: number) => {
    const chunk = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      const part = pending[0] as Uint8Array;
      const take = Math.min(part.length, length - filled);
      chunk.set(part.subarray(0, take), filled);
      filled += take;
      if (take === part.length) pending.shift();
      else pending[0] = part.subarray(take);
    }
    pendingBytes -= length;
    await store.writeChunk(file, file.chunks, new Blob([chunk]));
    file.chunks += 1;
    file.hashState = boundaryState;
    await store.putRecord(withoutUndefined(record));
  };

  try {
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (error) {
        if (signal?.aborted === true) throw error;
        throw new Retryable(
          `the connection was cut after ${formatBytes(position)} of ${formatBytes(file.size)} (${describe(error)})`,
          { cause: error },
        );
      }
      if (next.done) break;
      let bytes = next.value;
      run.fetched += bytes.length;
      run.meter.add(bytes.length, run.clock());
      if (skip > 0) {
        const dropped = Math.min(skip, bytes.length);
        skip -= dropped;
        bytes = bytes.subarray(dropped);
      }
      if (position + bytes.length > file.size) {
        throw new LmtabError(
          'download_failed',
          `${file.name} is longer than the hub's listing says: expected ${file.size} bytes, got more from ${url}.`,
        );
      }
      // Hash as bytes arrive, keeping the state at each chunk boundary for the chunk's record.
      while (bytes.length > 0) {
        const into = Math.min(file.chunkSize - pendingBytes, bytes.length);
        const piece = bytes.subarray(0, into);
        hash.update(piece);
        pending.push(piece);
        pendingBytes += into;
        position += into;
        bytes = bytes.subarray(into);
        if (pendingBytes === file.chunkSize) {
          boundaryState = hash.save();
          await storeChunk(file.chunkSize);
        }
      }
      const now = run.clock();
      if (
        now - run.lastReport >=
        (options.progressIntervalMs ?? downloadDefaults.progressIntervalMs)
      ) {
        run.lastReport = now;
        yield progressEvent(run, file, position, now);
      }
    }
  } finally {
    reader.releaseLock();
    // A cut or an abort leaves the body half read: let the connection go.
    void body.cancel().catch(() => undefined);
  }
  if (position < file.size) {
    throw new Retryable(
      `the connection closed after ${formatBytes(position)} of ${formatBytes(file.size)}`,
    );
  }
  if (pendingBytes > 0) {
    boundaryState = hash.save();
    await storeChunk(pendingBytes);
  }
  yield progressEvent(run, file, position, run.clock());
}

/** Checks the answer to a range request; returns how many leading bytes to drop. */
async function checkResponse(response: Response, file: StoredFile, from: number): Promise<number> {
  const status = response.status;
  if (status === 206) {
    const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers.get('Content-Range') ?? '');
    if (range === null) {
      // Without a readable Content-Range the answer cannot be placed in the file.
      throw new LmtabError(
        'download_failed',
        `Expected a Content-Range header answering "bytes=${from}-" for ${file.name}, got ${JSON.stringify(response.headers.get('Content-Range'))}.`,
      );
    }
    const start = Number(range[1]);
    const size = range[3] === '*' ? undefined : Number(range[3]);
    if (size !== undefined && size !== file.size) {
      throw new LmtabError(
        'download_failed',
        `${file.name} changed on the hub: expected ${file.size} bytes (from the listing), the server says ${size}. Delete the download and start again.`,
      );
    }
    if (start !== from) {
      throw new LmtabError(
        'download_failed',
        `Expected bytes of ${file.name} from ${from}, the server sent them from ${start}.`,
      );
    }
    return 0;
  }
  if (status === 200) return from; // The server ignored the range: drop what is stored.
  const detail = await errorDetail(response);
  const got = `HTTP ${status}${detail}`;
  const host = new URL(response.url === '' ? (file.url ?? '') : response.url).origin;
  if (status === 401 || status === 403) {
    throw new LmtabError(
      'unauthorized',
      `The hub refused ${file.name}: expected access to it, got ${got}. The repository is gated or private: accept its terms on the hub and set a hub token that has access.`,
    );
  }
  if (status === 404) {
    throw new LmtabError(
      'model_not_found',
      `${file.name} was not found on ${host}: expected the file at ${file.url ?? ''}, got ${got}.`,
    );
  }
  if (status === 429 || status >= 500) throw new Retryable(`${got} from ${host}`);
  throw new LmtabError(
    'download_failed',
    `Expected HTTP 206 with bytes of ${file.name} from ${host}, got ${got}.`,
  );
}

function progressEvent(run: Run, file: StoredFile, position: number, now: number): DownloadEvent {
  const files = filesOf(run.record);
  const bytes = files.reduce(
    (sum, other) => sum + (other === file ? position : storedBytes(other)),
    0,
  );
  const rate = run.meter.rate(now);
  const secondsLeft =
    rate === undefined || rate <= 0 ? undefined : Math.ceil((run.total - bytes) / rate);
  return withoutUndefined({
    type: 'progress' as const,
    id: run.record.id,
    file: file.name,
    fileBytes: position,
    fileSize: file.size,
    bytes,
    total: run.total,
    rate,
    secondsLeft,
  });
}

/** The GGUF facts of a finished download: model header (all split parts), projector checked. */
async function summarize(store: DownloadStore, record: ModelRecord): Promise<GgufSummary> {
  const [first, ...rest] = record.files;
  if (first === undefined) throw new Error('a download without files');
  const unusable = async (file: StoredFile, why: string) => {
    await store.delete(record.id);
    return new LmtabError(
      'download_failed',
      `${file.name} arrived intact but is not usable: ${why} The download was deleted.`,
    );
  };
  let summary: GgufSummary;
  try {
    summary = await readGgufSummary(await store.readFile(first));
  } catch (error) {
    throw await unusable(first, error instanceof Error ? error.message : String(error));
  }
  if (summary.fileKind === 'mmproj') {
    throw await unusable(first, 'expected a model, got a vision projector (mmproj).');
  }
  if (rest.length > 0) {
    // Each part of a split model lists only its own tensors: count them all.
    let parameters = summary.parameterCount;
    for (const part of rest) {
      const header = await readGgufHeader(await store.readFile(part));
      for (const tensor of header.tensors) parameters += tensor.dims.reduce((a, b) => a * b, 1);
    }
    summary = { ...summary, parameterCount: parameters };
  }
  if (record.projector !== undefined) {
    let projector: GgufSummary;
    try {
      projector = await readGgufSummary(await store.readFile(record.projector));
    } catch (error) {
      throw await unusable(
        record.projector,
        error instanceof Error ? error.message : String(error),
      );
    }
    if (projector.fileKind !== 'mmproj') {
      throw await unusable(record.projector, 'expected a vision projector (mmproj), got a model.');
    }
  }
  return summary;
}

/** Deletes a download that failed before storing any byte: there is nothing to resume. */
async function dropIfEmpty(store: DownloadStore, id: string): Promise<void> {
  const record = await store.get(id).catch(() => undefined);
  if (record === undefined || isComplete(record)) return;
  if (filesOf(record).every((file) => !file.complete && file.chunks === 0)) {
    await store.delete(id).catch(() => false);
  }
}

function newRecord(
  request: DownloadRequest,
  chunkSize: number | undefined,
  now: number,
): ModelRecord {
  const stored = (file: DownloadFile): StoredFile =>
    withoutUndefined({
      fileId: crypto.randomUUID(),
      name: file.name,
      size: file.size,
      sha256: file.sha256,
      chunkSize: chunkSize ?? defaultChunkSize(file.size),
      chunks: 0,
      complete: false,
      url: file.url,
    });
  const files = request.files.map(stored);
  const projector = request.projector === undefined ? undefined : stored(request.projector);
  return withoutUndefined({
    id: request.id,
    source: request.source,
    files,
    projector,
    // Filled from the GGUF header when the download completes.
    gguf: {
      architecture: 'unknown',
      parameterCount: 0,
      quantization: request.source.kind === 'hub' ? request.source.quantization : 'unknown',
      fileKind: 'model',
    },
    sizeBytes: [...files, ...(projector ? [projector] : [])].reduce((sum, f) => sum + f.size, 0),
    digest: files[0]?.sha256,
    createdAt: now,
  });
}

/** A 32nd of the file, rounded up to a power of two, from 64 KiB to 16 MiB. */
function defaultChunkSize(size: number): number {
  let chunk = minChunk;
  while (chunk < maxChunk && chunk * 32 < size) chunk *= 2;
  return chunk;
}

function checkRequest(request: DownloadRequest): void {
  const all = [...request.files, ...(request.projector ? [request.projector] : [])];
  if (request.files.length === 0) {
    throw new LmtabError(
      'invalid_request',
      `Expected at least one model file to download for ${request.id}, got none.`,
    );
  }
  for (const file of all) {
    if (!Number.isSafeInteger(file.size) || file.size < 0) {
      throw new LmtabError(
        'invalid_request',
        `Expected a byte size for ${file.name}, got ${String(file.size)}.`,
      );
    }
  }
}

function sameFiles(record: ModelRecord, request: DownloadRequest): boolean {
  const wanted = [...request.files, ...(request.projector ? [request.projector] : [])];
  const have = filesOf(record);
  return (
    wanted.length === have.length &&
    (request.projector === undefined) === (record.projector === undefined) &&
    wanted.every((file, i) => {
      const other = have[i];
      return (
        other !== undefined &&
        other.name === file.name &&
        other.size === file.size &&
        (other.sha256 ?? '') === (file.sha256 ?? '')
      );
    })
  );
}

function filesOf(record: ModelRecord): StoredFile[] {
  return [...record.files, ...(record.projector ? [record.projector] : [])];
}

function storedBytes(file: StoredFile): number {
  return file.complete ? file.size : Math.min(file.size, file.chunks * file.chunkSize);
}

async function errorDetail(response: Response): Promise<string> {
  const code = response.headers.get('X-Error-Code');
  const message = response.headers.get('X-Error-Message');
  let text = '';
  if (message === null) text = (await response.text().catch(() => '')).trim().slice(0, 200);
  const parts = [code, message ?? (text === '' ? null : text)].filter((p) => p !== null);
  return parts.length === 0 ? '' : ` ${parts.join(': ')}`;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    }
    signal?.addEventListener('abort', aborted, { once: true });
  });
}

function untilOnline(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      globalThis.removeEventListener('online', done);
      signal?.removeEventListener('abort', aborted);
      resolve();
    };
    const aborted = () => {
      globalThis.removeEventListener('online', done);
      reject(signal?.reason as Error);
    };
    globalThis.addEventListener('online', done, { once: true });
    signal?.addEventListener('abort', aborted, { once: true });
  });
}

function withoutUndefined<T extends object>(value: T): T {
  // Records go to IndexedDB and into tests' toEqual: keep absent fields absent.
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}
