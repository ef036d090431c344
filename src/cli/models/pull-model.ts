import { LmtabError } from '../../errors/index.js';
import { parseModelReference } from '../../hub/index.js';
import type { ProgressDisplay } from '../format/progress-display.js';
import type { RelayClient, TagsModel } from '../relay-client.js';

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
  const name = storedReference(await client.tags(), ref);
  if (name === undefined) {
    throw new LmtabError('model_not_found', `Pulled ${ref}, but the store does not list it.`);
  }
  return name;
}

/**
 * The stored model a hub reference names, spelled as the store has it (`hf.co/ORG/REPO:QUANT`,
 * in the hub's case): the level asked for, or without one Q4_K_M, else the newest level stored.
 */
export function storedReference(models: readonly TagsModel[], ref: string): string | undefined {
  let wanted;
  try {
    wanted = parseModelReference(ref);
  } catch {
    return undefined;
  }
  const prefix = `hf.co/${wanted.repo}:`.toLowerCase();
  const levels = models
    .filter((m) => m.name.toLowerCase().startsWith(prefix))
    .sort((a, b) => Date.parse(b.modified_at) - Date.parse(a.modified_at));
  const level = (m: TagsModel) => m.name.slice(prefix.length).toUpperCase();
  const exact = levels.find((m) => level(m) === (wanted.quantization ?? 'Q4_K_M').toUpperCase());
  if (exact !== undefined || wanted.quantization !== undefined) return exact?.name;
  return levels[0]?.name;
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
    const missing = error instanceof LmtabError && error.code === 'model_not_found';
    if (!missing || !isHubReference(ref)) throw error;
  }
  return storedReference(await client.tags(), ref) ?? pullModel(client, ref, display);
}
