// The machine's cache: installs and builds that depend only on their pinned versions (Node 24,
// Dawn and lavapipe for the WebGPU suite, the agents the agents spec drives), kept outside the
// checkout so that every clone on this machine, CI's fresh ones included, installs each pin once.
// `LMTAB_CACHE` overrides the folder (default `$XDG_CACHE_HOME/lmtab`, else `~/.cache/lmtab`).
// What depends on the checkout itself (fixtures, builds of its own sources) stays in its `.cache`.
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The folder of one kind of install in the machine's cache. */
export function machineCacheDir(name) {
  const base =
    process.env.LMTAB_CACHE ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'lmtab');
  return join(base, name);
}
