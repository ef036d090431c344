import { LmtabError } from '../../errors/index.js';
import { quote } from '../body/describe-value.js';

/**
 * The lower-case hex of a blob digest as Ollama writes it, `sha256:HEX` (paths and `files`), or
 * as it names blob files, `sha256-HEX`; throws `invalid_request` for anything else.
 */
export function parseBlobDigest(text: string, param = 'digest'): string {
  const match = /^sha256[:-]([0-9a-fA-F]{64})$/.exec(text.trim());
  if (match?.[1] === undefined) {
    throw new LmtabError(
      'invalid_request',
      `Invalid ${param}: expected "sha256:" followed by 64 hex digits, received ${quote(text)}.`,
      { param },
    );
  }
  return match[1].toLowerCase();
}

/** The store id an uploaded blob waits under until `/api/create` names a model after it. */
export function blobRecordId(hex: string): string {
  return `sha256-${hex}`;
}

/** Whether a store record is an uploaded blob waiting for `/api/create`, never listed as a model. */
export function isStagedBlob(record: { id: string }): boolean {
  return /^sha256-[0-9a-f]{64}$/.test(record.id);
}
