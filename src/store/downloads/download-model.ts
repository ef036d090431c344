import { LmtabError } from '../../errors/index.js';
import { acquireDownloadLock } from './download-lock.js';
import { checkRequest, newRecord, sameFiles, withoutUndefined } from './download-record.js';
import type {
  DownloadEvent,
  DownloadOptions,
  DownloadRequest,
  DownloadStore,
} from './download-types.js';
import { fetchFile, type Run } from './fetch-file.js';
import type { ModelRecord } from '../model-record.js';
import { filesOf, isComplete, storedBytes } from '../model-record.js';
import { RateMeter } from './rate-meter.js';
import { ensureSpace } from '../storage-space.js';
import { summarizeDownload } from './summarize-download.js';

export { downloadDefaults } from './fetch-file.js';
export type {
  DownloadEvent,
  DownloadFile,
  DownloadOptions,
  DownloadRequest,
  DownloadStore,
} from './download-types.js';

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
    const gguf = await summarizeDownload(store, record);
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

/** Deletes a download that failed before storing any byte: there is nothing to resume. */
async function dropIfEmpty(store: DownloadStore, id: string): Promise<void> {
  const record = await store.get(id).catch(() => undefined);
  if (record === undefined || isComplete(record)) return;
  if (filesOf(record).every((file) => !file.complete && file.chunks === 0)) {
    await store.delete(id).catch(() => false);
  }
}
