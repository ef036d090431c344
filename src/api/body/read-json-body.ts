import { LmtabError } from '../../errors/index.js';
import { describeBytes } from './describe-bytes.js';
import { quote } from './describe-value.js';
import { findTooDeep, maxJsonNesting } from './json-nesting.js';
import { requestBody } from '../../streams/index.js';

/** Options of {@link readJsonBody}. */
export interface ReadJsonBodyOptions {
  /** Largest body accepted, in bytes; larger ones are refused with 413. */
  maxBytes: number;
}

/**
 * Reads a request body as JSON, refusing it (413) when Content-Length or the bytes actually read
 * exceed the limit, and (400) when it is empty, not JSON, or nested deeper than
 * {@link maxJsonNesting} (checked on the text, before anything recurses over the value).
 */
export async function readJsonBody(
  request: Request,
  options: ReadJsonBodyOptions,
): Promise<unknown> {
  const bytes = await readLimited(request, options.maxBytes);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    throw new LmtabError(
      'invalid_request',
      `Malformed UTF-8 in the request body: expected JSON text in UTF-8, received ${bytes.length} ` +
        'bytes that are not valid UTF-8.',
      { cause: error },
    );
  }
  if (text.trim() === '') {
    throw new LmtabError(
      'invalid_request',
      'Missing request body: expected a JSON object, received an empty body.',
    );
  }
  const tooDeep = findTooDeep(text);
  if (tooDeep !== undefined) {
    throw new LmtabError(
      'invalid_request',
      `JSON nested too deeply in the request body: expected at most ${maxJsonNesting} levels of ` +
        `arrays and objects, received more (level ${maxJsonNesting + 1} opens at character ` +
        `${tooDeep.offset} of ${text.length}).`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw new LmtabError(
      'invalid_request',
      `Malformed JSON in the request body: expected a JSON object, received ${bytes.length} bytes ` +
        `starting with ${quote(text)}.`,
      { cause: error },
    );
  }
  const broken = findLoneSurrogate(value, '');
  if (broken !== undefined) {
    throw new LmtabError(
      'invalid_request',
      `Invalid text at \`${broken.path === '' ? 'body' : broken.path}\`: expected well-formed ` +
        `Unicode, received a lone surrogate (\\u${broken.unit}) that no UTF-8 text can hold.`,
      broken.path === '' ? {} : { param: broken.path },
    );
  }
  return value;
}

/** A UTF-16 surrogate without its partner. */
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The first string (or key) holding a lone surrogate, with its path and the code unit in hex. */
function findLoneSurrogate(
  value: unknown,
  path: string,
): { path: string; unit: string } | undefined {
  const check = (text: string, at: string) => {
    const match = loneSurrogate.exec(text);
    return match ? { path: at, unit: match[0].charCodeAt(0).toString(16) } : undefined;
  };
  if (typeof value === 'string') return check(value, path);
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findLoneSurrogate(item, `${path}[${index}]`);
      if (found) return found;
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const at = path === '' ? key : `${path}.${key}`;
      const found = check(key, at) ?? findLoneSurrogate(item, at);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * A request body's bytes, refused (413) once more than `maxBytes` arrive (Content-Length may be
 * absent or wrong, so the bytes themselves are counted).
 */
export async function readLimited(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) {
    throw new LmtabError(
      'body_too_large',
      `Request body too large: the limit is ${describeBytes(maxBytes)}, ` +
        `the Content-Length header says ${describeBytes(Number(declared))}.`,
    );
  }
  const body = requestBody(request);
  if (body === null) return new Uint8Array(0);
  // Content-Length can be absent (chunked) or wrong, so the bytes themselves are counted too.
  const reader = body.getReader();
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
