import { iterableToStream } from '../encoders/iterable-to-stream.js';
import { anthropicStreamError } from './anthropic-error.js';
import { formatAnthropicEvent } from './messages-encoder.js';
import type { AnthropicStreamEvent } from './messages-encoder.js';

/** A `text/event-stream` of Anthropic's named events; a failure mid-stream is a last `error` event. */
export function anthropicSseResponse(
  events: AsyncIterable<AnthropicStreamEvent, unknown>,
  onCancel: (reason: unknown) => void,
): Response {
  const body = iterableToStream<string>(formatted(events), {
    onError: anthropicStreamError,
    onCancel,
  }).pipeThrough(new TextEncoderStream());
  return new Response(body, {
    headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' },
  });
}

async function* formatted(events: AsyncIterable<AnthropicStreamEvent, unknown>) {
  for await (const event of events) yield formatAnthropicEvent(event);
}
