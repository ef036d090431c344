import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * lmtab's one home folder, for every command: the headless browser profile (`browser/`), API keys,
 * the relay's secret and the relay log. `$LMTAB_HOME` when set and not empty, else `~/.lmtab`.
 */
export function lmtabHome(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const configured = env.LMTAB_HOME;
  return configured === undefined || configured === '' ? join(home, '.lmtab') : configured;
}

/** The headless engines' default browser profile: `<lmtab home>/browser`. */
export function defaultProfileDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(lmtabHome(env), 'browser');
}
