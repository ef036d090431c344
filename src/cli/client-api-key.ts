import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lmtabHome } from '../relay/index.js';
import { isLocalHost } from './resolve-host.js';

/**
 * The API key the commands send: `LMTAB_API_KEY`, else, for a relay on this machine, the key it
 * made and keeps in `LMTAB_HOME/relay-api-key` (readable only by its owner), so that commands keep
 * working when `serve --require-key` asks this machine's programs for it. Never read for a relay
 * elsewhere, which should not learn this machine's key.
 */
export function clientApiKey(
  env: NodeJS.ProcessEnv,
  baseUrl: URL,
  read: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): string | undefined {
  const given = env.LMTAB_API_KEY;
  if (given !== undefined && given !== '') return given;
  if (!isLocalHost(baseUrl)) return undefined;
  try {
    const kept = read(join(lmtabHome(env), 'relay-api-key')).trim();
    return kept === '' ? undefined : kept;
  } catch {
    return undefined;
  }
}
