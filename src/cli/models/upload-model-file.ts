import { createHash } from 'node:crypto';
import { createReadStream, readdirSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { LmtabError } from '../../errors/index.js';
import type { ProgressDisplay } from '../format/progress-display.js';
import { projectorFileFor } from './projector-file-for.js';
import type { RelayClient } from '../relay-client.js';

/**
 * Sends a local GGUF file to the engine's store as an Ollama blob: hashes it, asks whether the
 * store has it (`HEAD /api/blobs/...`), uploads it when not. Returns its digest `sha256:HEX`.
 */
export async function uploadModelFile(
  client: RelayClient,
  path: string,
  display: ProgressDisplay,
): Promise<string> {
  const size = await fileSize(path);
  const name = basename(path);
  const hash = createHash('sha256');
  let hashed = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    hashed += chunk.length;
    display.update({ status: `reading ${name}`, total: size, completed: hashed });
  }
  const digest = `sha256:${hash.digest('hex')}`;
  if (await client.hasBlob(digest)) {
    display.update({ status: `using existing file ${digest}` });
    return digest;
  }
  let sent = 0;
  const counted = (
    Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>
  ).pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        sent += chunk.byteLength;
        display.update({ status: `copying file ${digest}`, digest, total: size, completed: sent });
        controller.enqueue(chunk);
      },
    }),
  );
  await client.uploadBlob(digest, counted, size);
  return digest;
}

/**
 * Uploads a local model file and the vision projector beside it, if one fits (see
 * `projectorFileFor`): the `files` of an `/api/create` request, file name to digest.
 */
export async function uploadLocalModel(
  client: RelayClient,
  path: string,
  display: ProgressDisplay,
): Promise<Record<string, string>> {
  const files = { [basename(path)]: await uploadModelFile(client, path, display) };
  let names: string[] = [];
  try {
    names = readdirSync(dirname(path));
  } catch {
    // An unreadable folder has no projector to offer.
  }
  const projector = projectorFileFor(path, names);
  if (projector !== undefined) {
    display.update({ status: `using vision projector ${projector}` });
    files[projector] = await uploadModelFile(client, join(dirname(path), projector), display);
  }
  return files;
}

async function fileSize(path: string): Promise<number> {
  try {
    const info = await stat(path);
    if (!info.isFile()) {
      throw new LmtabError('invalid_request', `Cannot read ${path}: it is not a file.`);
    }
    return info.size;
  } catch (error) {
    if (error instanceof LmtabError) throw error;
    throw new LmtabError('invalid_request', `Cannot read ${path}: ${describeFsError(error)}.`, {
      cause: error,
    });
  }
}

/** `no such file` or `permission denied` rather than a stack of Node details. */
export function describeFsError(error: unknown): string {
  const code = error instanceof Error && 'code' in error ? String(error.code) : '';
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a folder, not a file';
  return error instanceof Error ? error.message : String(error);
}
