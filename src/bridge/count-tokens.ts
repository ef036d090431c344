// For the request logs (the tab's, and the relay's metrics): how many tokens an answer carried,
// read from its own bytes.
import { tokenReaderFor } from '../api/wire.js';
import type { TokenReader } from '../api/wire.js';
import { createNdjsonDecoder, createSseDecoder } from '../streams/index.js';
import type { StreamDecoder } from '../streams/index.js';

/** Largest JSON answer read for its usage; bigger ones are not counted. */
const maxJsonBytes = 1024 * 1024;

/** A running count of the tokens in an answer of `contentType`, fed its body piece by piece. */
export interface TokenCounter {
  push(chunk: Uint8Array): void;
  /** The usage the answer reported, else the text events seen; undefined when unknown. */
  result(): number | undefined;
}

/**
 * Counts tokens of a JSON, SSE or NDJSON answer, read by `reader`: the protocol's of the
 * request's route (`tokenReaderFor(path)`, from the route table); default one that reads any.
 */
export function createTokenCounter(
  contentType: string,
  reader: TokenReader = tokenReaderFor(),
): TokenCounter {
  let bytes = 0;
  let events = 0;
  let usage: number | undefined;
  const read = (payload: string) => {
    if (!payload.startsWith('{')) return;
    try {
      const value = JSON.parse(payload) as Record<string, unknown>;
      usage = reader.reported(value) ?? usage;
      if (reader.carriesText(value)) events += 1;
    } catch {
      // A payload that is not JSON carries no count.
    }
  };
  const decoder: StreamDecoder | undefined = contentType.startsWith('text/event-stream')
    ? createSseDecoder((event) => read(event.data))
    : contentType.startsWith('application/x-ndjson')
      ? createNdjsonDecoder(read)
      : undefined;
  const json = contentType.startsWith('application/json');
  const text = new TextDecoder();
  let whole = '';

  return {
    push(chunk) {
      bytes += chunk.byteLength;
      if (decoder !== undefined) decoder.push(chunk);
      else if (json && bytes <= maxJsonBytes) whole += text.decode(chunk, { stream: true });
    },
    result() {
      if (decoder !== undefined) {
        decoder.end();
        return usage ?? (events > 0 ? events : undefined);
      }
      if (!json || bytes > maxJsonBytes) return undefined;
      try {
        return reader.reported(JSON.parse(whole) as Record<string, unknown>);
      } catch {
        return undefined;
      }
    },
  };
}

/** A running count of the seconds of audio in a spoken answer, fed its body piece by piece. */
export interface AudioSecondsCounter {
  push(chunk: Uint8Array): void;
  result(): number;
}

/**
 * Counts the seconds of a spoken answer (`/v1/audio/speech`): a WAV (its 44-byte header aside) or
 * raw pcm, 16-bit mono at the rate its `X-Sample-Rate` names; undefined for any other answer.
 */
export function createAudioSecondsCounter(headers: Headers): AudioSecondsCounter | undefined {
  const type = headers.get('content-type') ?? '';
  const rate = Number(headers.get('x-sample-rate'));
  if (!/^audio\/(wav|pcm)\b/.test(type) || !(rate > 0)) return undefined;
  const header = type.startsWith('audio/wav') ? 44 : 0;
  let bytes = 0;
  return {
    push: (chunk) => void (bytes += chunk.byteLength),
    result: () => Math.max(0, bytes - header) / 2 / rate,
  };
}
