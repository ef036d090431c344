// A download's record: made from the request, compared with an unfinished one, measured.
import { LmtabError } from '../../errors/index.js';
import type { ModelRecord, StoredFile } from '../model-record.js';
import { filesOf } from '../model-record.js';
import type { DownloadFile, DownloadRequest } from './download-types.js';

const minChunk = 64 * 1024;
const maxChunk = 16 * 1024 * 1024;

/** A new, empty record of a download's files; chunk sizes from `chunkSize` or each file's size. */
export function newRecord(
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
      chunkSize: chunkSize ?? chunkSizeFor(file.size),
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
function chunkSizeFor(size: number): number {
  let chunk = minChunk;
  while (chunk < maxChunk && chunk * 32 < size) chunk *= 2;
  return chunk;
}

/** Refuses a request without model files or with a size that is not a byte count. */
export function checkRequest(request: DownloadRequest): void {
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

/** Whether an unfinished record is a download of the same files (else it can never finish). */
export function sameFiles(record: ModelRecord, request: DownloadRequest): boolean {
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

/** A copy without `undefined` fields. */
export function withoutUndefined<T extends object>(value: T): T {
  // Records go to IndexedDB and into tests' toEqual: keep absent fields absent.
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}
