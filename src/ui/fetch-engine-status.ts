import type { EngineInfo, LoadedModel } from '../engine/index.js';
import { readApiError } from './read-api-error.js';

/** What `GET /api/lmtab/engine` answers: the compute path and the models in memory. */
export interface EngineStatus extends EngineInfo {
  /** Models resident now, with their busy slots. */
  loaded: LoadedModel[];
}

/** Asks the engine (through the page's service worker) for its compute path and loaded models. */
export async function fetchEngineStatus(
  options: { signal?: AbortSignal } = {},
): Promise<EngineStatus> {
  const response = await fetch('/api/lmtab/engine', { signal: options.signal });
  if (!response.ok) throw new Error(await readApiError(response));
  return (await response.json()) as EngineStatus;
}
