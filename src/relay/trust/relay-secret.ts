import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** A fresh random secret: 32 bytes as 64 hex digits (valid in a WebSocket subprotocol token). */
export function newSecret(): string {
  return randomBytes(32).toString('hex');
}

const wellFormed = /^[0-9a-f]{64}$/;

/**
 * The secret kept in `file` (mode 0600, its folder 0700), made on first use: the relay's engine
 * secret (`<lmtab home>/relay-secret`) or its generated API key (`<lmtab home>/relay-api-key`).
 * A file that holds anything else is replaced. Kept between starts, so that paired tabs reconnect
 * after a restart; delete the file to make a new one.
 */
export async function loadOrCreateSecret(file: string): Promise<string> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const fresh = newSecret();
  try {
    await writeFile(file, `${fresh}\n`, { flag: 'wx', mode: 0o600 });
    return fresh;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const kept = (await readFile(file, 'utf8')).trim();
  await chmod(file, 0o600);
  if (wellFormed.test(kept)) return kept;
  await writeFile(file, `${fresh}\n`, { mode: 0o600 });
  return fresh;
}
