import { LmtabError } from '../../errors/index.js';
import { checkModelName } from './check-model-name.js';
import { isStagedBlob } from './blob-digest.js';
import { DEFAULT_QUANTIZATION, nearestQuantization } from '../../hub/index.js';
import { isComplete, isHubPull } from '../../store/index.js';
import type { ModelRecord, ModelStore } from '../../store/index.js';

const maxListed = 10;

/** Options of {@link findModel}. */
export interface FindModelOptions {
  /** Also return a model whose download is unfinished (to delete it); default false. */
  includeIncomplete?: boolean;
  /** The request field that named the model, for errors; default `model`. */
  param?: string;
}

/**
 * The stored, complete model a request names; `name:latest` also finds `name` (Ollama clients add
 * the tag), and `hf.co/ORG/REPO` without a level finds the level a pull of it stores (Q4_K_M, else
 * the nearest stored one). Throws `invalid_request` (400) for a name Ollama's rules refuse (see
 * {@link checkModelName}), and `model_not_found` (404, param `model`) naming the stored models
 * otherwise.
 */
export async function findModel(
  store: ModelStore,
  id: string,
  options: FindModelOptions = {},
): Promise<ModelRecord> {
  checkModelName(id, options.param ?? 'model');
  const record =
    (await store.get(id)) ??
    (id.endsWith(':latest') ? await store.get(id.slice(0, -7)) : undefined) ??
    (await findHubDefault(store, id));
  if (record !== undefined && (isComplete(record) || options.includeIncomplete === true)) {
    return record;
  }
  if (record !== undefined) {
    throw new LmtabError(
      'model_not_found',
      `Model "${id}" is not ready: expected a completely downloaded model, received one whose ` +
        'files are still being stored.',
      { param: 'model' },
    );
  }
  const ids = (await store.list())
    .filter((r) => isComplete(r) && !isStagedBlob(r))
    .map((r) => r.id);
  const stored =
    ids.length === 0
      ? 'no models are stored yet'
      : `expected one of the stored models (${ids.slice(0, maxListed).join(', ')}` +
        `${ids.length > maxListed ? `, and ${ids.length - maxListed} more` : ''})`;
  throw new LmtabError('model_not_found', `Model "${id}" not found: ${stored}.`, {
    param: 'model',
  });
}

const untaggedHubName =
  /^(?:https?:\/\/)?(?:hf\.co|huggingface\.co)\/([^/:@]+\/[^/:@]+)(?::latest)?$/i;

/** `hf.co/ORG/REPO` names the level `ollama pull hf.co/ORG/REPO` picks: Q4_K_M, else the nearest. */
async function findHubDefault(store: ModelStore, id: string): Promise<ModelRecord | undefined> {
  const repo = untaggedHubName.exec(id)?.[1]?.toLowerCase();
  if (repo === undefined) return undefined;
  const stored = (await store.list()).filter(
    (record) => isHubPull(record, repo) && isComplete(record),
  );
  const level = (record: ModelRecord) =>
    record.source.kind === 'hub' ? record.source.quantization : '';
  const wanted =
    stored.find((record) => level(record) === DEFAULT_QUANTIZATION) ??
    stored.find(
      (record) => level(record) === nearestQuantization(DEFAULT_QUANTIZATION, stored.map(level)),
    );
  return wanted ?? stored[0];
}
