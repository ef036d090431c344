import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { LmtabError } from '../../errors/index.js';
import { describeFsError } from '../models/upload-model-file.js';

/** Largest image the CLI sends, in bytes (the API's body limit is 32 MiB of JSON). */
const maxImageBytes = 20 * 1024 * 1024;

/** Options of {@link readImage}. */
export interface ReadImageOptions {
  cwd: string;
  home: string;
}

/** Reads an image file (`~/` and relative paths allowed) as base64, as `/api/chat` takes it. */
export async function readImage(path: string, options: ReadImageOptions): Promise<string> {
  const absolute = resolveUserPath(path, options);
  try {
    const info = await stat(absolute);
    if (!info.isFile()) throw Object.assign(new Error('not a file'), { code: 'EISDIR' });
    if (info.size > maxImageBytes) {
      throw new LmtabError(
        'invalid_request',
        `Cannot attach ${path}: it is ${info.size} bytes, more than the ${maxImageBytes} an image may have.`,
      );
    }
    return (await readFile(absolute)).toString('base64');
  } catch (error) {
    if (error instanceof LmtabError) throw error;
    throw new LmtabError(
      'invalid_request',
      `Cannot read image ${path}: ${describeFsError(error)}.`,
      {
        cause: error,
      },
    );
  }
}

/** A path as typed, made absolute: `~/` is the home folder, relative paths start at `cwd`. */
export function resolveUserPath(path: string, options: ReadImageOptions): string {
  const expanded = /^~[\\/]/.test(path) ? resolve(options.home, path.slice(2)) : path;
  return isAbsolute(expanded) ? expanded : resolve(options.cwd, expanded);
}
