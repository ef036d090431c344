import { iterableToStream } from '../../encoders/iterable-to-stream.js';
import { createNdjsonEncoder } from '../../encoders/ndjson-encoder.js';
import { ollamaStreamError } from '../ollama-error.js';

/** Options of {@link ndjsonResponse}. */
export interface NdjsonResponseOptions {
  /** Called when the client cancels the body; aborts the generation. */
  onCancel: (reason: unknown) => void;
}

/** An `application/x-ndjson` response; a failure mid-stream is a last
 * `{"error": ..., "code": ...}` line. */
export function ndjsonResponse(
  values: AsyncIterable<unknown>,
  options: NdjsonResponseOptions,
): Response {
  const body = iterableToStream<unknown>(values, {
    onError: ollamaStreamError,
    onCancel: options.onCancel,
  }).pipeThrough(createNdjsonEncoder());
  return new Response(body, { headers: { 'Content-Type': 'application/x-ndjson' } });
}
