import { buildGgufChoices, parseModelReference, pickChoice } from '../../hub/index.js';
import type { GgufChoice, HubClient, HubModelInfo } from '../../hub/index.js';
import type { DownloadRequest } from './download-types.js';
import { hubDownloadRequest } from './hub-download-request.js';

/** Options of {@link resolveHubModel}. */
export interface ResolveHubModelOptions {
  /** Aborts the hub requests. */
  signal?: AbortSignal;
}

/** A model reference resolved against the hub: what it names and how to download it. */
export interface ResolvedHubModel {
  info: HubModelInfo;
  /** Every level the repository offers, smallest first. */
  choices: GgufChoice[];
  /** The level the reference picks (Q4_K_M, else the nearest, when it names none). */
  choice: GgufChoice;
  /** The download of that level, pinned to the commit the listing described. */
  request: DownloadRequest;
}

/**
 * Resolves `hf.co/ORG/REPO:QUANT` or `ORG/REPO` (Ollama's pull names): model info, file listing at
 * its commit, GGUF choices, the picked level. Throws `model_not_found` when the repository or the
 * level does not exist, `unauthorized` for a private repository without a token.
 */
export async function resolveHubModel(
  client: HubClient,
  reference: string,
  options: ResolveHubModelOptions = {},
): Promise<ResolvedHubModel> {
  const { signal } = options;
  const wanted = parseModelReference(reference);
  const info = await client.modelInfo(wanted.repo, {
    revision: wanted.revision === 'main' ? undefined : wanted.revision,
    signal,
  });
  const revision = info.sha ?? wanted.revision;
  const files = await client.listFiles(info.id, { revision, signal });
  const { choices } = buildGgufChoices(files);
  const choice = pickChoice(choices, wanted.quantization, { repo: info.id });
  return {
    info,
    choices,
    choice,
    request: hubDownloadRequest(client, { repo: info.id, revision, choice }),
  };
}
