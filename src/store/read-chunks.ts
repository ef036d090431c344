/**
 * Regroups a byte stream into pieces of exactly `chunkSize` bytes (the last may be shorter), each
 * as the list of views that make it up: nothing is copied, and no more than one chunk is held.
 * Reading stops (the stream is cancelled) when the consumer stops iterating or `signal` aborts;
 * an abort also ends a read that waits for bytes which may never come.
 */
export async function* readChunks(
  source: ReadableStream<Uint8Array>,
  chunkSize: number,
  signal?: AbortSignal,
): AsyncGenerator<Uint8Array[]> {
  const reader = source.getReader();
  const stop = () => void reader.cancel(signal?.reason).catch(() => undefined);
  signal?.addEventListener('abort', stop, { once: true });
  let parts: Uint8Array[] = [];
  let held = 0;
  let finished = false;
  try {
    for (;;) {
      signal?.throwIfAborted();
      const { done, value } = await reader.read();
      if (done) break;
      let rest = value;
      while (held + rest.byteLength >= chunkSize) {
        const take = chunkSize - held;
        parts.push(rest.subarray(0, take));
        rest = rest.subarray(take);
        yield parts;
        parts = [];
        held = 0;
      }
      if (rest.byteLength > 0) {
        parts.push(rest);
        held += rest.byteLength;
      }
    }
    signal?.throwIfAborted();
    finished = true;
    if (held > 0) yield parts;
  } finally {
    signal?.removeEventListener('abort', stop);
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
