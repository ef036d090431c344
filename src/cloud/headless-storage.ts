import { LmtabError } from '../errors/index.js';
import { hubEndpointFromEnv } from '../hub/index.js';
import type { AppDefinition } from './define-app.js';

// The page reads these at start (src/hub/hub-settings.ts, src/engine/saved-engine-settings.ts); the keys
// are private there, so headless-storage.test.ts checks that both still agree.
/** localStorage key of the page's hub settings (endpoint, token). */
export const HUB_SETTINGS_KEY = 'lmtab.hub-settings';
/** localStorage key of the page's engine load settings. */
export const ENGINE_SETTINGS_KEY = 'lmtab.engine-settings';

/** The variable that sets the headless engine's CPU threads (default: every core the page sees). */
export const THREADS_ENV = 'LMTAB_THREADS';

/**
 * The headless engine's WebAssembly threads from `LMTAB_THREADS`; undefined when unset or empty.
 * Throws `invalid_request` naming the variable when it is not a whole number from 1 to 256.
 */
export function engineThreadsFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const text = env[THREADS_ENV]?.trim();
  if (text === undefined || text === '') return undefined;
  const threads = Number(text);
  if (!/^\d+$/.test(text) || threads < 1 || threads > 256) {
    throw new LmtabError(
      'invalid_request',
      `${THREADS_ENV}: expected a whole number of threads from 1 to 256, received "${text}"`,
    );
  }
  return threads;
}

/**
 * What a headless engine page should find in its localStorage: the hub endpoint and token of the
 * Node process (`HF_ENDPOINT`, `HF_TOKEN`), which the page cannot read itself, its CPU threads
 * (`LMTAB_THREADS`), and for an app its context length and parallel slots. Empty entries are left
 * out, so a person's settings stay.
 */
export function headlessStorage(
  env: NodeJS.ProcessEnv,
  app?: Pick<AppDefinition, 'contextLength' | 'parallel'>,
): Record<string, string> {
  const storage: Record<string, string> = {};
  const hub: { endpoint?: string; token?: string } = {};
  const endpoint = hubEndpointFromEnv(env);
  if (endpoint !== undefined) hub.endpoint = endpoint;
  const token = env.HF_TOKEN?.trim();
  if (token !== undefined && token !== '') hub.token = token;
  if (Object.keys(hub).length > 0) storage[HUB_SETTINGS_KEY] = JSON.stringify(hub);
  // The page spreads these settings into createWllamaEngine's options, which take `parallel`
  // (EngineSettings, the GUI's form, does not list it yet).
  const engine = {
    ...(app === undefined ? {} : { contextLength: app.contextLength, parallel: app.parallel }),
    threads: engineThreadsFromEnv(env),
  };
  if (Object.values(engine).some((value) => value !== undefined)) {
    storage[ENGINE_SETTINGS_KEY] = JSON.stringify(engine);
  }
  return storage;
}
