import { fchmodSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Opens a log for appending, readable by its owner only (0600, its folder 0700), as the secrets
 * beside it are: a relay's log holds the links it prints (with the engine secret) and the API key
 * it made. A log made by an older lmtab (0644) is tightened too; a folder that exists keeps its
 * mode. Returns the file descriptor.
 */
export function openPrivateLog(path: string): number {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const fd = openSync(path, 'a', 0o600);
  fchmodSync(fd, 0o600);
  return fd;
}
