import { LmtabError } from '../errors/index.js';
import { isComplete } from '../store/index.js';
import type { ModelRecord, ModelStore } from '../store/index.js';

const maxListed = 10;

/** Options of {@link findModel}. */
export interface FindModelOptions {
  /** Also return a model whose download is unfinished (to delete it); default false. */
  includeIncomplete?: boolean;
}

/**
 * The stored, complete model a request names; `name:latest` also finds `name` (Ollama clients add
 * the tag). Throws `model_not_found` (404, param `model`) naming the stored models otherwise.
 */
export async function findModel(
  store: ModelStore,
  id: string,
  options: FindModelOptions = {},
): Promise<ModelRecord> {
  const record =
    (await store.get(id)) ??
    (id.endsWith(':latest') ? await store.get(id.slice(0, -7)) : undefined);
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
  const ids = (await store.list()).filter(isComplete).map((r) => r.id);
  const stored =
    ids.length === 0
      ? 'no models are stored yet'
      : `expected one of the stored models (${ids.slice(0, maxListed).join(', ')}` +
        `${ids.length > maxListed ? `, and ${ids.length - maxListed} more` : ''})`;
  throw new LmtabError('model_not_found', `Model "${id}" not found: ${stored}.`, {
    param: 'model',
  });
}
