import { LmtabError, readErrorAnswer } from '../errors/index.js';
import { readNdjson } from '../streams/index.js';
import { parseModelReference } from '../hub/index.js';

/** Options of {@link pullAndLoad}. */
export interface PullAndLoadOptions {
  /** The relay whose engine pulls and loads, e.g. `http://127.0.0.1:41234`. */
  relayUrl: string;
  /** Hub reference: `hf.co/ORG/REPO:QUANT` or `ORG/REPO`. */
  model: string;
  /** Context length to load with, in tokens. */
  contextLength: number;
  /** Told about progress in short lines (`pulling 3f1a2b 40%`); default nothing. */
  onStatus?: (line: string) => void;
  signal?: AbortSignal;
  /** Default the global `fetch`. */
  fetch?: typeof fetch;
}

interface TagsModel {
  name: string;
  modified_at?: string;
}

/** Turns a relay's error answer into an LmtabError with the relay's own code. */
async function failure(response: Response, what: string): Promise<LmtabError> {
  const stated = await readErrorAnswer(response);
  return new LmtabError(stated.code, `${what} failed (${response.status}): ${stated.message}`);
}

/**
 * The stored model a hub reference names, as `/api/tags` spells it (`hf.co/ORG/REPO:QUANT`): the
 * level asked for, or without one Q4_K_M, else the newest level of that repository.
 */
export function storedModelName(
  models: readonly TagsModel[],
  reference: string,
): string | undefined {
  const wanted = parseModelReference(reference);
  const prefix = `hf.co/${wanted.repo}:`.toLowerCase();
  const candidates = models
    .filter((model) => model.name.toLowerCase().startsWith(prefix))
    .sort((a, b) => Date.parse(b.modified_at ?? '') - Date.parse(a.modified_at ?? ''));
  const level = (model: TagsModel) => model.name.slice(prefix.length).toUpperCase();
  const exact = candidates.find(
    (model) => level(model) === (wanted.quantization ?? 'Q4_K_M').toUpperCase(),
  );
  if (exact !== undefined || wanted.quantization !== undefined) return exact?.name;
  return candidates[0]?.name;
}

/**
 * Makes an app's model ready in a relay's engine: `POST /api/pull` (resumes or finds it already
 * stored), then loads it with the app's context length (`POST /api/generate` with no prompt, as
 * Ollama loads, `keep_alive: -1`). Returns the stored model name clients use.
 */
export async function pullAndLoad(options: PullAndLoadOptions): Promise<string> {
  const fetchImpl = options.fetch ?? fetch;
  const { relayUrl, model, signal } = options;
  const say = options.onStatus ?? (() => undefined);
  const post = (path: string, body: unknown) =>
    fetchImpl(`${relayUrl}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });

  const pulled = await post('/api/pull', { model, stream: true });
  if (!pulled.ok || pulled.body === null) throw await failure(pulled, `Pulling ${model}`);
  let succeeded = false;
  let last = '';
  const lines = readNdjson<Record<string, unknown>>(pulled.body);
  try {
    for await (const line of lines) {
      const status = String(line.status ?? '');
      if (status === 'success') succeeded = true;
      const total = Number(line.total ?? 0);
      // One line per status and per tenth of a file, not one per chunk.
      const shown =
        total > 0
          ? `${status} ${Math.floor((Number(line.completed ?? 0) / total) * 10) * 10}%`
          : status;
      if (shown !== last) say(shown);
      last = shown;
    }
  } catch (error) {
    // An error line: the relay's code, the pull named.
    if (!(error instanceof LmtabError)) throw error;
    throw new LmtabError(error.code, `Pulling ${model} failed: ${error.message}`);
  }
  if (!succeeded)
    throw new LmtabError('download_failed', `Pulling ${model} ended without "success".`);

  const tags = await fetchImpl(`${relayUrl}/api/tags`, { signal });
  if (!tags.ok) throw await failure(tags, 'Listing the stored models');
  const name = storedModelName(
    ((await tags.json()) as { models?: TagsModel[] }).models ?? [],
    model,
  );
  if (name === undefined) {
    throw new LmtabError('model_not_found', `Pulled ${model}, but /api/tags does not list it.`);
  }
  say(`loading ${name}`);
  const loaded = await post('/api/generate', {
    model: name,
    keep_alive: -1,
    stream: false,
    options: { num_ctx: options.contextLength },
  });
  if (!loaded.ok) throw await failure(loaded, `Loading ${name}`);
  return name;
}
