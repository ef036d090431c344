import type { StreamDecoder } from './sse-decoder.js';

/** Decodes an `application/x-ndjson` body pushed piece by piece, calling `onLine` per non-empty line. */
export function createNdjsonDecoder(onLine: (line: string) => void): StreamDecoder {
  const text = new TextDecoder();
  let pending = '';
  const flush = (final: boolean) => {
    const lines = pending.split('\n');
    pending = final ? '' : (lines.pop() ?? '');
    for (const line of lines) {
      const trimmed = line.trim();
      if (trimmed !== '') onLine(trimmed);
    }
  };
  return {
    push(chunk) {
      pending += typeof chunk === 'string' ? chunk : text.decode(chunk, { stream: true });
      flush(false);
    },
    end() {
      pending += text.decode();
      flush(true);
    },
  };
}
