import { toLmtabError } from '../../errors/index.js';
import type { LmtabError } from '../../errors/index.js';

/** Options of {@link iterableToStream}. */
export interface IterableToStreamOptions<T> {
  /** The last value to send when the source fails mid-stream (the stream then ends). */
  onError: (error: LmtabError) => T;
  /** Called when the reader cancels the stream (the client went away). */
  onCancel: (reason: unknown) => void;
}

/**
 * A ReadableStream pulling values from an async iterable: a failure becomes one final value
 * (headers are already sent, so it cannot be a status), and cancelling stops the source.
 */
export function iterableToStream<T>(
  source: AsyncIterable<T>,
  options: IterableToStreamOptions<T>,
): ReadableStream<T> {
  const iterator = source[Symbol.asyncIterator]();
  return new ReadableStream<T>({
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done === true) controller.close();
        else controller.enqueue(next.value);
      } catch (error) {
        try {
          controller.enqueue(options.onError(toLmtabError(error)));
          controller.close();
        } catch {
          // The reader cancelled while the source was failing; nobody is left to tell.
        }
      }
    },
    cancel(reason) {
      options.onCancel(reason);
      // Not awaited: a source that ignores the abort must not hold up the cancel.
      void iterator.return?.().catch(() => undefined);
    },
  });
}
