import { LmtabError, toLmtabError } from '../../errors/index.js';
import type { ContentPart } from '../../engine/index.js';
import { describeBytes } from '../body/describe-bytes.js';
import { quote } from '../body/describe-value.js';
import { acceptedImageFormats, sniffImageType } from './sniff-image-type.js';

/** An image as the engine takes it: bytes and MIME type. */
export type ImagePart = Extract<ContentPart, { type: 'image' }>;

/** Options of {@link decodeImage}. */
export interface DecodeImageOptions {
  /** Wire path of the image, named in errors and as `param`, e.g. `messages[0].content[1]`. */
  param: string;
  /** Whether bare base64 (Ollama's `images`) is accepted besides data URIs; default false. */
  bareBase64?: boolean;
  /** Fetches http(s) image URLs; absent means URLs are refused. */
  fetch?: typeof globalThis.fetch;
  /** Aborts a fetch of an image URL. */
  signal?: AbortSignal;
  /** Largest image accepted, in bytes. */
  maxBytes: number;
}

/**
 * Decodes an image given as a `data:image/...;base64,` URI, an http(s) URL or (when allowed) bare
 * base64, and checks by its magic bytes that it is an image; the MIME type comes from those bytes.
 */
export async function decodeImage(source: string, options: DecodeImageOptions): Promise<ImagePart> {
  const { param } = options;
  let bytes: Uint8Array;
  if (source.startsWith('data:')) {
    const comma = source.indexOf(',');
    const header = comma === -1 ? source : source.slice(0, comma);
    if (comma === -1 || !header.endsWith(';base64')) {
      throw invalid(
        param,
        `Invalid image at \`${param}\`: expected a base64 data URI (data:image/png;base64,...), ` +
          `received a data URI without ";base64," (${quote(header)}).`,
      );
    }
    bytes = decodeBase64(source.slice(comma + 1), param);
  } else if (/^https?:\/\//i.test(source)) {
    bytes = await fetchImage(source, options);
  } else if (options.bareBase64 === true) {
    bytes = decodeBase64(source, param);
  } else {
    throw invalid(
      param,
      `Invalid image at \`${param}\`: expected a data:image/...;base64 URI or an http(s) URL, ` +
        `received ${quote(source)}.`,
    );
  }
  if (bytes.length > options.maxBytes) {
    throw invalid(
      param,
      `Image at \`${param}\` too large: the limit is ${describeBytes(options.maxBytes)}, ` +
        `received ${describeBytes(bytes.length)}.`,
    );
  }
  const mimeType = sniffImageType(bytes);
  if (mimeType === undefined) {
    const head = Array.from(bytes.slice(0, 8), (b) => b.toString(16).padStart(2, '0')).join(' ');
    throw invalid(
      param,
      `Invalid image at \`${param}\`: expected a ${acceptedImageFormats} image, received ` +
        `${bytes.length} bytes that are none of these (first bytes: ${head === '' ? 'none' : head}).`,
    );
  }
  return { type: 'image', data: bytes, mimeType };
}

/** Bytes of base64 text (standard or URL-safe alphabet); `what` names them in the error. */
export function decodeBase64(text: string, param: string, what = 'image'): Uint8Array {
  const compact = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
    throw invalid(
      param,
      `Invalid ${what} at \`${param}\`: expected base64-encoded ${what} bytes, received text that is ` +
        `not base64 (${quote(compact)}).`,
    );
  }
  const binary = atob(compact.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

async function fetchImage(url: string, options: DecodeImageOptions): Promise<Uint8Array> {
  const { param } = options;
  const fetch = options.fetch;
  if (fetch === undefined) {
    throw invalid(
      param,
      `Invalid image at \`${param}\`: expected base64 image data, received a URL (${quote(url)}).`,
    );
  }
  let response: Response;
  try {
    response = await fetch(url, { signal: options.signal });
  } catch (error) {
    if (options.signal?.aborted === true) throw toLmtabError(error);
    const reason = error instanceof Error ? error.message : String(error);
    throw invalid(param, `Could not fetch the image at \`${param}\` (${url}): ${reason}.`, error);
  }
  if (!response.ok) {
    void response.body?.cancel().catch(() => undefined);
    const status = `${response.status} ${response.statusText}`.trim();
    throw invalid(
      param,
      `Could not fetch the image at \`${param}\` (${url}): expected HTTP 200, the server ` +
        `answered HTTP ${status}.`,
    );
  }
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > options.maxBytes) {
    void response.body?.cancel().catch(() => undefined);
    throw invalid(
      param,
      `Image at \`${param}\` too large: the limit is ${describeBytes(options.maxBytes)}, ` +
        `${url} is ${describeBytes(declared)}.`,
    );
  }
  try {
    return new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    if (options.signal?.aborted === true) throw toLmtabError(error);
    const reason = error instanceof Error ? error.message : String(error);
    throw invalid(param, `Could not read the image at \`${param}\` (${url}): ${reason}.`, error);
  }
}

function invalid(param: string, message: string, cause?: unknown): LmtabError {
  return new LmtabError('invalid_request', message, { param, cause });
}
