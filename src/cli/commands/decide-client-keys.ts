import { isLoopbackName, type ClientKeys } from '../../relay/index.js';

/** The `serve` flags {@link decideClientKeys} reads. */
export interface ClientKeyFlags {
  /** The interface the relay binds. */
  host: string;
  /** `--api-key` values. */
  apiKey: readonly string[];
  /** False with `--no-auth`. */
  auth: boolean;
  /**
   * `--require-key`: programs on this machine need the key too (a reverse proxy on this host,
   * other users of it); a key is made when none is given.
   */
  requireKey?: boolean;
}

/**
 * Who needs a key: everyone with `--api-key` or `LMTAB_API_KEY`, or with `--require-key` (a key
 * is made when none is given); bound beyond loopback without one, other devices, with a key the
 * relay makes (`made`: `makeKey` keeps it under LMTAB_HOME), unless `--no-auth`; on loopback
 * without a key, no one (the API is open, as local runtimes are).
 */
export async function decideClientKeys(
  flags: ClientKeyFlags,
  env: NodeJS.ProcessEnv,
  makeKey: () => Promise<string>,
): Promise<{ keys: ClientKeys; made: boolean }> {
  const fromEnv = env.LMTAB_API_KEY;
  const given = [...flags.apiKey, ...(fromEnv === undefined || fromEnv === '' ? [] : [fromEnv])];
  if (given.length > 0) return { keys: { keys: given, required: 'everyone' }, made: false };
  if (flags.requireKey === true) {
    return { keys: { keys: [await makeKey()], required: 'everyone' }, made: true };
  }
  if (isLoopbackName(flags.host) || !flags.auth) {
    return { keys: { keys: [], required: 'everyone' }, made: false };
  }
  return { keys: { keys: [await makeKey()], required: 'remote' }, made: true };
}
