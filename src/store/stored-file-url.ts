/** Path prefix under which the service worker serves the files of stored models. */
export const storedFilePrefix = '/lmtab-store/';

// The `resolve/main/` segment mirrors a Hugging Face file URL, which web-llm expects a model URL
// to contain (it appends one otherwise).
const revisionSegment = '/resolve/main/';

/** Path of the folder of a stored model's files: `/lmtab-store/ID/resolve/main/`. */
export function storedModelPath(id: string): string {
  return `${storedFilePrefix}${encodeURIComponent(id)}${revisionSegment}`;
}

/** Path of one stored file of a model; `name` may hold `/` (files in folders). */
export function storedFilePath(id: string, name: string): string {
  return storedModelPath(id) + name.split('/').map(encodeURIComponent).join('/');
}

/** The model id and file name a stored-file path names, or undefined for any other path. */
export function parseStoredFilePath(pathname: string): { id: string; name: string } | undefined {
  if (!pathname.startsWith(storedFilePrefix)) return undefined;
  const rest = pathname.slice(storedFilePrefix.length);
  const split = rest.indexOf(revisionSegment);
  if (split <= 0) return undefined;
  const name = rest.slice(split + revisionSegment.length);
  if (name === '') return undefined;
  try {
    return {
      id: decodeURIComponent(rest.slice(0, split)),
      name: name.split('/').map(decodeURIComponent).join('/'),
    };
  } catch {
    return undefined;
  }
}
