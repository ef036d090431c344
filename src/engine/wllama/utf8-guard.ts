import type { GgufMetadataValue } from '../../store/index.js';

/**
 * Keeps llama.cpp's output valid UTF-8 inside wllama.
 *
 * wllama serializes every streamed piece with nlohmann::json's strict `dump()` (llama-server uses a
 * replacing dump). A malformed byte makes it throw, which ends the answer with "Invalid typed array
 * length", rejects every other pending request of that wllama instance, and leaves the request's
 * slot generating. Byte-level vocabularies (LFM2's among them) can emit any single byte, so a model
 * can write malformed text; random-weight test models do so every few hundred tokens.
 *
 * Two guards close it:
 * - {@link VALID_UTF8_GRAMMAR} rejects a token that breaks a multi-byte sequence (a stray
 *   continuation byte, a lead byte without its continuation); llama.cpp then resamples, so a valid
 *   token costs one check.
 * - llama.cpp's grammar decoder accepts some malformed lead bytes, so {@link unsafeByteTokens}
 *   bans the single-byte tokens that start them: C0 and C1 (overlong), F5 to FF (beyond U+10FFFF),
 *   and E0, ED, F0, F4 (whose second byte the decoder does not range-check). Characters behind those
 *   leads still come through the vocabulary's merged tokens (`à¤`, `ðŁ`).
 */
export const VALID_UTF8_GRAMMAR = 'root ::= [^\\x00]*';

/** Lead bytes that never start valid UTF-8, or that llama.cpp's grammar decoder checks too loosely. */
const unsafeLeadBytes = [0xc0, 0xc1, 0xe0, 0xed, 0xf0, 0xf4];
for (let byte = 0xf5; byte <= 0xff; byte++) unsafeLeadBytes.push(byte);

/**
 * The ids of the vocabulary's single-byte tokens for {@link unsafeLeadBytes}: GPT-2 style byte
 * tokens (`tokenizer.ggml.model` = `gpt2`) or SentencePiece byte-fallback tokens (`<0xE0>`).
 * An unknown tokenizer gives none.
 */
export function unsafeByteTokens(metadata: ReadonlyMap<string, GgufMetadataValue>): number[] {
  const tokens = metadata.get('tokenizer.ggml.tokens');
  if (!Array.isArray(tokens)) return [];
  const model = metadata.get('tokenizer.ggml.model');
  const wanted = new Set(
    unsafeLeadBytes.map((byte) =>
      // GPT-2's byte-to-unicode table maps bytes from 0xAE on to the same code point.
      model === 'gpt2'
        ? String.fromCharCode(byte)
        : `<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`,
    ),
  );
  const ids: number[] = [];
  tokens.forEach((token, id) => {
    if (typeof token === 'string' && wanted.has(token)) ids.push(id);
  });
  return ids;
}

/** GPT-2's byte-to-unicode table, reversed: the byte each printable stand-in character means. */
function gpt2UnicodeToByte(): Map<string, number> {
  const map = new Map<string, number>();
  let next = 256;
  for (let byte = 0; byte < 256; byte++) {
    const printable =
      (byte >= 0x21 && byte <= 0x7e) || (byte >= 0xa1 && byte <= 0xac) || byte >= 0xae;
    map.set(String.fromCharCode(printable ? byte : next++), byte);
  }
  return map;
}

/**
 * The ids of tokens whose text starts with a UTF-8 continuation byte (0x80 to 0xBF). Listed as a
 * logprob alternative, such a token is text wllama cannot serialize (nlohmann's strict `dump()`
 * throws, and the request fails with "Invalid typed array length"); so they are banned when
 * logprobs are asked for, at the cost of characters that a vocabulary splits mid-sequence.
 */
export function continuationTokens(metadata: ReadonlyMap<string, GgufMetadataValue>): number[] {
  const tokens = metadata.get('tokenizer.ggml.tokens');
  if (!Array.isArray(tokens)) return [];
  const gpt2 = metadata.get('tokenizer.ggml.model') === 'gpt2';
  const toByte = gpt2 ? gpt2UnicodeToByte() : undefined;
  const ids: number[] = [];
  tokens.forEach((token, id) => {
    if (typeof token !== 'string' || token === '') return;
    let first: number | undefined;
    if (toByte !== undefined) first = toByte.get(token[0]!);
    else if (/^<0x[89AB][0-9A-F]>$/.test(token)) first = parseInt(token.slice(3, 5), 16);
    if (first !== undefined && first >= 0x80 && first <= 0xbf) ids.push(id);
  });
  return ids;
}

/**
 * The ids of tokens whose bytes are not valid UTF-8 by themselves: a character cut at either end
 * (`" \xC3"`, a lone lead or continuation byte). wllama 3.13.0's stock build serializes logprob
 * alternatives with nlohmann's strict `dump()` (lmtab's CPU build replaces such bytes, as
 * llama-server does): listed as an alternative, such a token failed the request with "invalid
 * UTF-8 byte". So on that build they are banned when logprobs are asked for.
 */
export function partialCharacterTokens(metadata: ReadonlyMap<string, GgufMetadataValue>): number[] {
  const tokens = metadata.get('tokenizer.ggml.tokens');
  if (!Array.isArray(tokens)) return [];
  const gpt2 = metadata.get('tokenizer.ggml.model') === 'gpt2';
  const toByte = gpt2 ? gpt2UnicodeToByte() : undefined;
  const strict = new TextDecoder('utf-8', { fatal: true });
  const ids: number[] = [];
  tokens.forEach((token, id) => {
    if (typeof token !== 'string' || token === '') return;
    let bytes: number[] | undefined;
    if (toByte !== undefined) {
      bytes = [];
      for (const character of token) {
        const byte = toByte.get(character);
        if (byte === undefined) return;
        bytes.push(byte);
      }
    } else if (/^<0x[89A-F][0-9A-F]>$/.test(token)) bytes = [parseInt(token.slice(3, 5), 16)];
    if (bytes === undefined) return;
    try {
      strict.decode(new Uint8Array(bytes));
    } catch {
      ids.push(id);
    }
  });
  return ids;
}
