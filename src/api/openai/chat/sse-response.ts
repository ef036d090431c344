import { iterableToStream } from '../../encoders/iterable-to-stream.js';
import { createSseEncoder } from '../../encoders/sse-encoder.js';
import type { SseMessage } from '../../encoders/sse-encoder.js';
import { openAiErrorBody } from '../openai-error.js';

/** Options of {@link sseResponse}. */
export interface SseResponseOptions {
  /** Called when the client cancels the body; aborts the generation. */
  onCancel: (reason: unknown) => void;
}

/** A `text/event-stream` response of OpenAI events; a failure mid-stream is a last error event. */
export function sseResponse(
  messages: AsyncIterable<SseMessage>,
  options: SseResponseOptions,
): Response {
  const body = iterableToStream<SseMessage>(messages, {
    onError: openAiErrorBody,
    onCancel: options.onCancel,
  }).pipeThrough(createSseEncoder());
  return new Response(body, {
    headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' },
  });
}
