/**
 * Reads the first `bytes` of a stream (fewer when it is shorter) and gives them back with a stream
 * of the whole body, the peeked bytes first; the rest is read only as that stream is read.
 */
export async function peekStream(
  source: ReadableStream<Uint8Array>,
  bytes: number,
): Promise<{ head: Uint8Array; body: ReadableStream<Uint8Array> }> {
  const reader = source.getReader();
  const pieces: Uint8Array[] = [];
  let held = 0;
  let ended = false;
  try {
    while (held < bytes) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      pieces.push(value);
      held += value.byteLength;
    }
  } catch (error) {
    reader.releaseLock();
    throw error;
  }
  const head = new Uint8Array(held);
  let offset = 0;
  for (const piece of pieces) {
    head.set(piece, offset);
    offset += piece.byteLength;
  }
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = pieces.shift();
        if (next !== undefined) return controller.enqueue(next);
        if (ended) return controller.close();
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
  return { head, body };
}
