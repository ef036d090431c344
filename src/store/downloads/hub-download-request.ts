import { canonicalModelName } from '../../hub/index.js';
import type { GgufChoice, HubClient, HubFile } from '../../hub/index.js';
import type { DownloadFile, DownloadRequest } from './download-types.js';

/** Options of {@link hubDownloadRequest}. */
export interface HubDownloadRequestOptions {
  /** Repository id `ORG/REPO` in the hub's spelling (from the model info). */
  repo: string;
  /**
   * Commit to fetch from; default `main`. Pass the model info's `sha` so that every byte of a
   * download (also one resumed days later) comes from the same commit the listing described.
   */
  revision?: string;
  /** The quantization level picked, with its files and paired projector. */
  choice: GgufChoice;
}

/** The store's download request for one GGUF choice: URLs, sizes, sha256, id `hf.co/ORG/REPO:QUANT`. */
export function hubDownloadRequest(
  client: HubClient,
  options: HubDownloadRequestOptions,
): DownloadRequest {
  const { repo, choice } = options;
  const revision = options.revision ?? 'main';
  const file = (hubFile: HubFile): DownloadFile => {
    const wanted: DownloadFile = {
      name: hubFile.path,
      url: client.fileUrl(repo, hubFile.path, revision),
      size: hubFile.size,
    };
    if (hubFile.sha256 !== undefined) wanted.sha256 = hubFile.sha256;
    return wanted;
  };
  const request: DownloadRequest = {
    id: canonicalModelName(repo, choice.quantization),
    source: {
      kind: 'hub',
      repo,
      revision,
      quantization: choice.quantization,
      endpoint: client.endpoint,
    },
    files: choice.files.map(file),
  };
  if (choice.projector !== undefined) request.projector = file(choice.projector);
  return request;
}
