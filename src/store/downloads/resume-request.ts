import { LmtabError } from '../../errors/index.js';
import type { DownloadFile, DownloadRequest } from './download-model.js';
import type { ModelRecord, StoredFile } from '../model-record.js';

/** The request that continues an unfinished download from its stored record (after a reload). */
export function resumeRequest(record: ModelRecord): DownloadRequest {
  const file = (stored: StoredFile): DownloadFile => {
    if (stored.url === undefined) {
      throw new LmtabError(
        'invalid_request',
        `${record.id} cannot be resumed: expected the download URL of ${stored.name} in its record, found none (it was imported, not downloaded).`,
      );
    }
    const wanted: DownloadFile = { name: stored.name, url: stored.url, size: stored.size };
    if (stored.sha256 !== undefined) wanted.sha256 = stored.sha256;
    return wanted;
  };
  const request: DownloadRequest = {
    id: record.id,
    source: record.source,
    files: record.files.map(file),
  };
  if (record.projector !== undefined) request.projector = file(record.projector);
  return request;
}
