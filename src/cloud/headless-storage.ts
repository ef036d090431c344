import { hubEndpointFromEnv } from '../hub/index.js';
import type { AppDefinition } from './define-app.js';

// The page reads these at start (src/hub/hub-settings.ts, src/engine/saved-engine-settings.ts); the keys
// are private there, so headless-storage.test.ts checks that both still agree.
/** localStorage key of the page's hub settings (endpoint, token). */
export const HUB_SETTINGS_KEY = 'lmtab.hub-settings';
/** localStorage key of the page's engine load settings. */
export const ENGINE_SETTINGS_KEY = 'lmtab.engine-settings';

/**
 * What a headless engine page should find in its localStorage: the hub endpoint and token of the
 * Node process (`HF_ENDPOINT`, `HF_TOKEN`), which the page cannot read itself, and for an app its
 * context length and parallel slots. Empty entries are left out, so a person's settings stay.
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
  if (app !== undefined) {
    // The page spreads these settings into createWllamaEngine's options, which take `parallel`
    // (EngineSettings, the GUI's form, does not list it yet).
    storage[ENGINE_SETTINGS_KEY] = JSON.stringify({
      contextLength: app.contextLength,
      parallel: app.parallel,
    });
  }
  return storage;
}
