import { LmtabError } from '../../errors/index.js';
import { describeBytes } from './describe-bytes.js';
import { requestBody } from '../../streams/index.js';

/** Options of {@link limitBlobBody}. */
export interface LimitBlobBodyOptions {
  /** Largest body accepted, in bytes; larger ones are refused with 413. */
  maxBytes: number;
}

/**
 * The body of a model-file upload as a stream that passes bytes on as they arrive and errors with
 * 413 once more than `maxBytes` have passed; throws 413 at once when Content-Length says more.
 * Nothing is buffered here: the reader's pace is the sender's (backpressure all the way back).
 */
export function limitBlobBody(
  request: Request,
  options: LimitBlobBodyOptions,
): ReadableStream<Uint8Array> {
  const { maxBytes } = options;
  const tooLarge = (what: string) =>
    new LmtabError(
      'body_too_large',
      `Model file too large: the limit is ${describeBytes(maxBytes)}, ${what}.`,
    );
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) {
    void requestBody(request)
      ?.cancel()
      .catch(() => undefined);
    throw tooLarge(`the Content-Length header says ${describeBytes(Number(declared))}`);
  }
  const body = requestBody(request);
  if (body === null) return new ReadableStream({ start: (c) => c.close() });
  let total = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        total += chunk.byteLength;
        if (total > maxBytes) throw tooLarge(`received at least ${describeBytes(total)}`);
        controller.enqueue(chunk);
      },
    }),
  );
}
