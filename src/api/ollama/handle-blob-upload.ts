import { LmtabError } from '../../errors/index.js';
import { readGgufSummary, Sha256 } from '../../store/index.js';
import type { ModelRecord } from '../../store/index.js';
import { describeBytes } from '../describe-bytes.js';
import { readBlobBody } from '../read-blob-body.js';
import type { RouteContext } from '../route-context.js';
import { blobRecordId, parseBlobDigest } from './blob-digest.js';
import { findBlob } from './find-blob.js';
import { findProjector } from './find-projector.js';

/**
 * `POST /api/blobs/sha256:HEX`: stores the body as a model file (Ollama's blob upload, used by
 * `create` with a local file), verified against the digest in the path: 201 when stored, 200 when
 * already there, 400 when the bytes hash to another digest (nothing is kept then). A vision
 * projector is held until `/api/create` pairs it with a model.
 */
export async function handleBlobUpload(context: RouteContext): Promise<Response> {
  const { request, store } = context;
  const hex = parseBlobDigest(context.params.id ?? '');
  const known =
    (await findBlob(store, hex)) ?? (await findProjector(store, context.projectorUploads, hex));
  if (known !== undefined) {
    void request.body?.cancel().catch(() => undefined);
    return new Response(null, { status: 200 });
  }
  const body = await readBlobBody(request, { maxBytes: context.maxBlobBytes });
  if (body.size === 0) {
    throw new LmtabError(
      'invalid_request',
      'Missing request body: expected the bytes of a GGUF model file, received an empty body.',
    );
  }
  const mismatch = (actual: string | undefined) =>
    new LmtabError(
      'invalid_request',
      `Digest mismatch: the path says sha256:${hex}, but the ${describeBytes(body.size)} ` +
        `received hash to sha256:${actual ?? 'nothing'}.`,
    );

  const summary = await readGgufSummary(body).catch(() => undefined);
  if (summary?.fileKind === 'mmproj') {
    const actual = await hashBlob(body, context.signal);
    if (actual !== hex) throw mismatch(actual);
    context.projectorUploads.put(hex, body);
    return new Response(null, { status: 201 });
  }

  const id = blobRecordId(hex);
  let record: ModelRecord | undefined;
  const file = new File([body], `${id}.gguf`);
  for await (const event of store.importFiles(file, { id, signal: context.signal })) {
    if (event.type === 'done') record = event.record;
  }
  const actual = record?.files[0]?.sha256 ?? record?.digest;
  if (actual !== hex) {
    await store.delete(id);
    throw mismatch(actual);
  }
  return new Response(null, { status: 201 });
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
