import { readFile, rename, writeFile } from 'node:fs/promises';

/**
 * Writes `bytes` to `path` unless the file already holds exactly them (tiny fixtures: comparing
 * the whole file catches any change in a generator). Parallel test workers may race here: each
 * writes a private file and renames it in place.
 */
export async function writeIfChanged(path: string, bytes: Uint8Array): Promise<void> {
  const current = await readFile(path).catch(() => undefined);
  if (current !== undefined && Buffer.from(bytes).equals(current)) return;
  const temporary = `${path}.${process.pid}-${Math.random().toString(36).slice(2)}.partial`;
  await writeFile(temporary, bytes);
  await rename(temporary, path);
}
