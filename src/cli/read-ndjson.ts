import { LmtabError } from '../errors/index.js';

/**
 * Yields the JSON values of an NDJSON body line by line as they arrive; a `{"error": "..."}` line
 * (a failure after the stream began) is thrown as an LmtabError.
 */
export async function* readNdjson<T>(body: ReadableStream<Uint8Array>): AsyncGenerator<T> {
  const decoder = new TextDecoder();
  let buffered = '';
  const parse = (line: string): T => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new LmtabError(
        'engine_failure',
        `The relay sent a line that is not JSON: ${JSON.stringify(line.slice(0, 80))}.`,
        { cause: error },
      );
    }
    if (typeof value === 'object' && value !== null && 'error' in value) {
      throw new LmtabError('engine_failure', String(value.error));
    }
    return value as T;
  };
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).trim();
        buffered = buffered.slice(newline + 1);
        if (line !== '') yield parse(line);
      }
    }
  } finally {
    // A reader that stops early (an error line, Ctrl+C) closes the connection.
    void reader.cancel().catch(() => undefined);
  }
  const rest = (buffered + decoder.decode()).trim();
  if (rest !== '') yield parse(rest);
}
