import { statSync } from 'node:fs';
import type { CliContext } from '../cli-context.js';
import { findImagePaths } from './find-image-paths.js';
import { readImage, resolveUserPath } from './read-image.js';

/**
 * Attaches the images whose paths a message mentions, as Ollama's `run` does for vision models:
 * each existing file is read, its path removed from the text, and `Added image '...'` printed.
 */
export async function takeImagePaths(
  text: string,
  context: Pick<CliContext, 'cwd' | 'home' | 'stderr'>,
): Promise<{ text: string; images: string[] }> {
  const images: string[] = [];
  let rest = text;
  for (const match of findImagePaths(text)) {
    if (!isFile(resolveUserPath(match.path, context))) continue;
    images.push(await readImage(match.path, context));
    context.stderr.write(`Added image '${match.path}'\n`);
    rest = rest.replace(match.raw, '');
  }
  return { text: rest.replace(/[ \t]{2,}/g, ' ').trim(), images };
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
