import { LmtabError } from '../errors/index.js';
import { parseModelReference } from '../hub/index.js';
import type { ProgressDisplay } from './progress-display.js';
import type { RelayClient } from './relay-client.js';

/**
 * Pulls a hub model through the relay (`/api/pull`), showing its progress, and returns the name
 * it is stored under: the reference itself, or the `hf.co/ORG/REPO:QUANT` the hub picked.
 */
export async function pullModel(
  client: RelayClient,
  ref: string,
  display: ProgressDisplay,
  options: { signal?: AbortSignal } = {},
): Promise<string> {
  for await (const status of client.pull(ref, options)) display.update(status);
  display.finish();
  if (await client.has(ref)) return ref;
  // `ORG/REPO` without a level is stored under the level the hub chose; take the newest.
  const repo = parseModelReference(ref).repo.toLowerCase();
  const stored = (await client.tags())
    .filter((m) => m.name.toLowerCase().startsWith(`hf.co/${repo}:`))
    .sort((a, b) => Date.parse(b.modified_at) - Date.parse(a.modified_at));
  const name = stored[0]?.name;
  if (name === undefined) {
    throw new LmtabError('model_not_found', `Pulled ${ref}, but the store does not list it.`);
  }
  return name;
}

/** Whether a model name looks like a hub reference (`hf.co/ORG/REPO[:QUANT]` or `ORG/REPO`). */
export function isHubReference(name: string): boolean {
  try {
    parseModelReference(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * The stored name of a model to use, pulling it first when it is a hub reference the store lacks
 * (as Ollama's `run` and `create` do); an unknown plain name fails with the relay's message.
 */
export async function ensureModel(
  client: RelayClient,
  ref: string,
  display: ProgressDisplay,
): Promise<string> {
  try {
    await client.show(ref);
    return ref;
  } catch (error) {
    const missing = error instanceof LmtabError && error.status === 404;
    if (!missing || !isHubReference(ref)) throw error;
  }
  return pullModel(client, ref, display);
}
