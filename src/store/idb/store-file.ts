import { LmtabError } from '../../errors/index.js';
import type { StoredFile } from '../model-record.js';
import { readChunks } from '../read-chunks.js';
import { Sha256 } from '../sha256.js';
import type { StoreProgress } from '../store.js';
import type { UploadSession } from '../upload-lock.js';
import type { IdbTables } from './idb-tables.js';

/** A new file's entry: no chunk stored yet. */
function newFile(tables: IdbTables, name: string, size: number): StoredFile {
  const { chunkSize } = tables;
  return { fileId: crypto.randomUUID(), name, size, chunkSize, chunks: 0, complete: false };
}

/**
 * Writes a local file into chunks, hashing as it goes; `session` marks it until it is saved. A
 * failure deletes what was written. Yields progress; returns the whole file.
 */
export async function* storeFile(
  tables: IdbTables,
  source: Blob,
  fileName: string,
  session: UploadSession,
  signal?: AbortSignal,
): AsyncGenerator<StoreProgress & { type: 'progress' }, StoredFile> {
  const file = newFile(tables, fileName, source.size);
  const { chunkSize } = file;
  await session.hold(file.fileId);
  const hash = new Sha256();
  const writes = overlappedWrites();
  try {
    for (let offset = 0; offset < source.size; offset += chunkSize) {
      signal?.throwIfAborted();
      const part = source.slice(offset, offset + chunkSize);
      hash.update(new Uint8Array(await part.arrayBuffer()));
      await writes.start(() => tables.writeChunk(file, file.chunks, part));
      file.chunks += 1;
      yield {
        type: 'progress',
        file: fileName,
        bytes: Math.min(offset + chunkSize, source.size),
        total: source.size,
      } as const;
    }
    await writes.finish();
  } catch (error) {
    await writes.settled();
    await tables.deleteChunks(file);
    throw error;
  }
  file.sha256 = hash.digestHex();
  file.complete = true;
  return file;
}

/** Runs {@link storeFile} to its end, without its progress. */
export async function storeWholeFile(
  tables: IdbTables,
  source: Blob,
  fileName: string,
  session: UploadSession,
  signal?: AbortSignal,
): Promise<StoredFile> {
  for (let step = storeFile(tables, source, fileName, session, signal); ;) {
    const next = await step.next();
    if (next.done) return next.value;
  }
}

/**
 * Writes a stream into chunks, hashing as it goes, within `session`: refused at its first chunk
 * when it does not start like a GGUF file, and when it is empty or its bytes do not hash to
 * `sha256`. Returns the whole file; on any failure (an abort included) deletes what was written.
 */
export async function storeStream(
  tables: IdbTables,
  source: ReadableStream<Uint8Array>,
  {
    fileName,
    sha256,
    session,
    signal,
  }: { fileName: string; sha256?: string; session: UploadSession; signal?: AbortSignal },
): Promise<StoredFile> {
  const file = newFile(tables, fileName, 0);
  const hash = new Sha256();
  await session.hold(file.fileId);
  const writes = overlappedWrites();
  try {
    for await (const parts of readChunks(source, file.chunkSize, signal)) {
      signal?.throwIfAborted();
      if (file.chunks === 0) refuseNonGguf(fileName, parts);
      for (const part of parts) {
        hash.update(part);
        file.size += part.byteLength;
      }
      // The Blob takes the bytes out of this context; the views are dropped right after.
      await writes.start(() => tables.writeChunk(file, file.chunks, new Blob(parts as BlobPart[])));
      file.chunks += 1;
    }
    await writes.finish();
    signal?.throwIfAborted();
    file.sha256 = hash.digestHex();
    if (sha256 !== undefined && file.sha256 !== sha256) {
      throw new LmtabError(
        'invalid_request',
        `Digest mismatch: expected sha256:${sha256}, but the ${file.size} bytes received hash to sha256:${file.sha256}; nothing was kept.`,
      );
    }
    if (file.size === 0) {
      throw new LmtabError(
        'invalid_request',
        'Missing request body: expected the bytes of a GGUF model file, received an empty body.',
      );
    }
    file.complete = true;
    return file;
  } catch (error) {
    await writes.settled();
    await tables.deleteChunks({ ...file, complete: false });
    throw error;
  }
}

/**
 * One chunk write in flight while the next chunk is read and hashed: a stream's sender keeps
 * sending (its credit comes back as the chunk is read, not once it is on disk), and a file's next
 * slice is read while the last is written. Uploads through the relay ran at 18 MiB/s with each
 * write awaited.
 */
function overlappedWrites() {
  let inFlight: Promise<void> | undefined;
  return {
    /** Waits for the write before (throwing its error), then starts `write` and lets it run. */
    async start(write: () => Promise<void>): Promise<void> {
      await inFlight;
      const started = write();
      inFlight = started;
      // Its error is thrown by the next start() or finish(); until then it is not unhandled.
      started.catch(() => undefined);
    },
    /** Waits for the last write, throwing its error. */
    finish: (): Promise<void> => inFlight ?? Promise.resolve(),
    /** Waits for the last write, whatever its outcome (before deleting what was written). */
    settled: (): Promise<void> => (inFlight ?? Promise.resolve()).catch(() => undefined),
  };
}

/** Refuses a stream at its first chunk when it does not start like a GGUF file. */
function refuseNonGguf(fileName: string, parts: Uint8Array[]): void {
  const head = new Uint8Array(4);
  let filled = 0;
  for (const part of parts) {
    const take = part.subarray(0, head.length - filled);
    head.set(take, filled);
    filled += take.byteLength;
    if (filled === head.length) break;
  }
  if (filled < head.length || new TextDecoder().decode(head) === 'GGUF') return;
  throw new LmtabError(
    'invalid_request',
    `${fileName} is not a GGUF file: expected its first bytes to be "GGUF", received ${JSON.stringify(new TextDecoder().decode(head))}.`,
  );
}
