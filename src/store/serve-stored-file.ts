import type { ModelStore } from './store.js';
import { parseStoredFilePath } from './stored-file-url.js';

const contentTypes: Record<string, string> = {
  json: 'application/json',
  wasm: 'application/wasm',
  bin: 'application/octet-stream',
  model: 'application/octet-stream',
  gguf: 'application/octet-stream',
};

function textResponse(status: number, text: string): Response {
  return new Response(text, {
    status,
    headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' },
  });
}

/**
 * Answers a GET of `/lmtab-store/ID/resolve/main/NAME` with that stored file, read from the store's
 * chunks (disk-backed Blobs, nothing is loaded into memory). web-llm loads MLC models this way.
 */
export async function serveStoredFile(
  store: Pick<ModelStore, 'get' | 'open'>,
  pathname: string,
): Promise<Response> {
  const wanted = parseStoredFilePath(pathname);
  if (!wanted) {
    return textResponse(404, `Expected /lmtab-store/ID/resolve/main/FILE, got ${pathname}.`);
  }
  const record = await store.get(wanted.id);
  const index = record?.files.findIndex((f) => f.name === wanted.name) ?? -1;
  if (!record || index < 0) {
    const found = record
      ? `it has ${record.files.map((f) => f.name).join(', ')}`
      : 'no such model is stored';
    return textResponse(404, `No stored file "${wanted.name}" of model "${wanted.id}": ${found}.`);
  }
  if (!record.files[index].complete) {
    return textResponse(409, `"${wanted.name}" of model "${wanted.id}" is still downloading.`);
  }
  const blob = (await store.open(wanted.id)).model[index];
  const extension = wanted.name.split('.').pop()?.toLowerCase() ?? '';
  return new Response(blob, {
    headers: {
      'Content-Type': contentTypes[extension] ?? 'application/octet-stream',
      'Content-Length': String(blob.size),
      // The store is the cache: keep the browser's HTTP cache from holding a second copy.
      'Cache-Control': 'no-store',
    },
  });
}
