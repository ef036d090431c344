/** An image path written in a prompt. */
export interface ImagePathMatch {
  /** The text as written (quotes and `\ ` escapes included), to remove from the prompt. */
  raw: string;
  /** The path it names, unquoted and unescaped (`~` is left for the caller to expand). */
  path: string;
}

const extensions = '(?:png|jpe?g|webp|gif|bmp)';
// A path starts with /, ./, ../ or ~/ at the start of the text or after a blank; it may hold
// escaped spaces, or any spaces when quoted (as terminals paste dragged files).
const pattern = new RegExp(
  `(['"])((?:~|\\.{1,2})?/[^'"\\n]*?\\.${extensions})\\1` +
    `|(?<![^\\s])((?:~|\\.{1,2})?/(?:\\\\ |[^\\s])+?\\.${extensions})(?=$|[\\s,;:!?)])`,
  'gi',
);

/**
 * Finds image file paths in a prompt (PNG, JPEG, WebP, GIF, BMP), as Ollama's `run` does for
 * vision models; the caller keeps those that exist and removes their `raw` text from the prompt.
 */
export function findImagePaths(text: string): ImagePathMatch[] {
  return [...text.matchAll(pattern)].map((m) => {
    const quoted = m[2];
    return quoted !== undefined
      ? { raw: m[0], path: quoted }
      : { raw: m[0], path: (m[3] ?? '').replace(/\\ /g, ' ') };
  });
}
