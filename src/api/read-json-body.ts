import { LmtabError } from '../errors/index.js';
import { describeBytes } from './describe-bytes.js';
import { quote } from './describe-value.js';

/** Options of {@link readJsonBody}. */
export interface ReadJsonBodyOptions {
  /** Largest body accepted, in bytes; larger ones are refused with 413. */
  maxBytes: number;
}

/**
 * Reads a request body as JSON, refusing it (413) when Content-Length or the bytes actually read
 * exceed the limit, and (400) when it is empty or not JSON.
 */
export async function readJsonBody(
  request: Request,
  options: ReadJsonBodyOptions,
): Promise<unknown> {
  const { maxBytes } = options;
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) {
    throw new LmtabError(
      'body_too_large',
      `Request body too large: the limit is ${describeBytes(maxBytes)}, ` +
        `the Content-Length header says ${describeBytes(Number(declared))}.`,
    );
  }
  const bytes = await readLimited(request, maxBytes);
  const text = new TextDecoder().decode(bytes);
  if (text.trim() === '') {
    throw new LmtabError(
      'invalid_request',
      'Missing request body: expected a JSON object, received an empty body.',
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new LmtabError(
      'invalid_request',
      `Malformed JSON in the request body: expected a JSON object, received ${bytes.length} bytes ` +
        `starting with ${quote(text)}.`,
      { cause: error },
    );
  }
}

async function readLimited(request: Request, maxBytes: number): Promise<Uint8Array> {
  if (request.body === null) return new Uint8Array(0);
  // Content-Length can be absent (chunked) or wrong, so the bytes themselves are counted too.
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      void reader.cancel().catch(() => undefined);
      throw new LmtabError(
        'body_too_large',
        `Request body too large: the limit is ${describeBytes(maxBytes)}, ` +
          `received at least ${describeBytes(total)}.`,
      );
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
