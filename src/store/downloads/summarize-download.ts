import { LmtabError } from '../../errors/index.js';
import type { DownloadStore } from './download-types.js';
import { readGgufHeader, readGgufSummary } from '../gguf-header.js';
import type { GgufSummary, ModelRecord, StoredFile } from '../model-record.js';

/** The GGUF facts of a finished download: model header (all split parts), projector checked. */
export async function summarizeDownload(
  store: DownloadStore,
  record: ModelRecord,
): Promise<GgufSummary> {
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
