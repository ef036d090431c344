// One file's transfer: Range requests, chunked storing with the running sha256, retries.
import { LmtabError } from '../../errors/index.js';
import type { ModelRecord, StoredFile } from '../model-record.js';
import { withoutUndefined } from './download-record.js';
import { filesOf, storedBytes } from '../model-record.js';
import type { DownloadEvent, DownloadOptions } from './download-types.js';
import type { RateMeter } from './rate-meter.js';
import { Sha256 } from '../sha256.js';
import { formatBytes } from '../storage-space.js';

/** The defaults of a download's retries and progress events. */
export const downloadDefaults = {
  retries: 6,
  retryDelayMs: 1000,
  progressIntervalMs: 250,
} as const;

const maxRetryDelayMs = 30_000;

/** A failure worth retrying: a cut connection, a 5xx or 429 answer. */
class Retryable extends Error {}

/** The state of one call of {@link downloadModel}. */
export interface Run {
  record: ModelRecord;
  options: DownloadOptions;
  clock: () => number;
  meter: RateMeter;
  total: number;
  /** Bytes fetched from the network by this call. */
  fetched: number;
  lastReport: number;
}

/**
 * Fetches one file to its end with `Range` requests, resuming after the last stored chunk and
 * retrying cut connections; yields progress, retries and the file's sha256 verdict.
 */
export async function* fetchFile(run: Run, file: StoredFile): AsyncGenerator<DownloadEvent, void> {
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
