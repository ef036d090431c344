import { LmtabError } from '../errors/index.js';
import { describeBytes } from './describe-bytes.js';

/** Options of {@link readBlobBody}. */
export interface ReadBlobBodyOptions {
  /** Largest body accepted, in bytes; larger ones are refused with 413. */
  maxBytes: number;
}

/**
 * Reads a request body (a model file) into a Blob chunk by chunk, so the browser may keep the
 * parts on disk, refusing it (413) when Content-Length or the bytes read exceed the limit.
 */
export async function readBlobBody(request: Request, options: ReadBlobBodyOptions): Promise<Blob> {
  const { maxBytes } = options;
  const declared = request.headers.get('content-length');
  const tooLarge = (what: string) =>
    new LmtabError(
      'body_too_large',
      `Model file too large: the limit is ${describeBytes(maxBytes)}, ${what}.`,
    );
  if (declared !== null && Number(declared) > maxBytes) {
    void request.body?.cancel().catch(() => undefined);
    throw tooLarge(`the Content-Length header says ${describeBytes(Number(declared))}`);
  }
  if (request.body === null) return new Blob([]);
  const reader = request.body.getReader();
  const parts: Blob[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return new Blob(parts);
    total += value.byteLength;
    if (total > maxBytes) {
      void reader.cancel().catch(() => undefined);
      throw tooLarge(`received at least ${describeBytes(total)}`);
    }
    parts.push(new Blob([value]));
  }
}
