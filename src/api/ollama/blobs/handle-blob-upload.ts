import { LmtabError } from '../../../errors/index.js';
import { readGgufSummary, Sha256 } from '../../../store/index.js';
import { describeBytes } from '../../body/describe-bytes.js';
import { limitBlobBody } from '../../body/limit-blob-body.js';
import { peekStream } from '../../body/peek-stream.js';
import type { RouteContext } from '../../pipeline/route-context.js';
import { blobRecordId, parseBlobDigest } from '../../pipeline/blob-digest.js';
import { findBlob } from './find-blob.js';
import { findProjector } from './find-projector.js';
import { pruneUploads } from './prune-uploads.js';
import { requestBody } from '../../../streams/index.js';

/** Bytes read before deciding whether an upload is a vision projector (their headers are small). */
const sniffBytes = 1024 * 1024;

/**
 * `POST /api/blobs/sha256:HEX`: stores the body as a model file (Ollama's blob upload, used by
 * `create` with a local file), verified against the digest in the path: 201 when stored, 200 when
 * already there, 400 when the bytes hash to another digest (nothing is kept then). The body streams
 * into the store as it arrives, never held whole. A vision projector is held until `/api/create`
 * pairs it with a model. An upload no create names is removed after `unusedUploadKeepMs`.
 */
export async function handleBlobUpload(context: RouteContext): Promise<Response> {
  const { request, store } = context;
  const hex = parseBlobDigest(context.params.id ?? '');
  await pruneUploads(store, { clock: context.clock, projectors: context.projectorUploads });
  const known =
    (await findBlob(store, hex)) ?? (await findProjector(store, context.projectorUploads, hex));
  if (known !== undefined) {
    void requestBody(request)
      ?.cancel()
      .catch(() => undefined);
    return new Response(null, { status: 200 });
  }
  const limited = limitBlobBody(request, { maxBytes: context.maxBlobBytes });
  const { head, body } = await peekStream(limited, sniffBytes);
  if (head.byteLength === 0) {
    void body.cancel().catch(() => undefined);
    throw new LmtabError(
      'invalid_request',
      'Missing request body: expected the bytes of a GGUF model file, received an empty body.',
    );
  }
  const summary = await readGgufSummary(new Blob([head as Uint8Array<ArrayBuffer>]), {
    fileSize: Number.POSITIVE_INFINITY,
  }).catch(() => undefined);
  if (summary?.fileKind === 'mmproj') {
    const blob = await streamToBlob(body);
    const actual = await hashBlob(blob, context.signal);
    if (actual !== hex) {
      throw new LmtabError(
        'invalid_request',
        `Digest mismatch: the path says sha256:${hex}, but the ${describeBytes(blob.size)} ` +
          `received hash to sha256:${actual}.`,
      );
    }
    context.projectorUploads.put(hex, blob);
    return new Response(null, { status: 201 });
  }
  const declared = request.headers.get('content-length');
  const id = blobRecordId(hex);
  await store.importStream(body, {
    id,
    fileName: `${id}.gguf`,
    sha256: hex,
    size: declared === null ? undefined : Number(declared),
    signal: context.signal,
  });
  return new Response(null, { status: 201 });
}

/** Reads a stream into a Blob piece by piece, so the browser keeps the parts out of this heap. */
async function streamToBlob(source: ReadableStream<Uint8Array>): Promise<Blob> {
  const parts: Blob[] = [];
  const reader = source.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return new Blob(parts);
    parts.push(new Blob([value as Uint8Array<ArrayBuffer>]));
  }
}

async function hashBlob(blob: Blob, signal: AbortSignal): Promise<string> {
  const hash = new Sha256();
  const step = 16 * 1024 * 1024;
  for (let offset = 0; offset < blob.size; offset += step) {
    signal.throwIfAborted();
    hash.update(new Uint8Array(await blob.slice(offset, offset + step).arrayBuffer()));
  }
  return hash.digestHex();
}
