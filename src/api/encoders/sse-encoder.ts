/** Marks the end of an OpenAI event stream; encoded as `data: [DONE]`. */
export const sseDone: unique symbol = Symbol('sse-done');

/** One message of an SSE stream: a JSON payload, or the end marker. */
export type SseMessage = unknown;

/** Formats one Server-Sent Event carrying `data` as JSON (or `[DONE]` for {@link sseDone}). */
export function formatSseEvent(data: SseMessage): string {
  return `data: ${data === sseDone ? '[DONE]' : JSON.stringify(data)}\n\n`;
}

/** A TransformStream from JSON payloads (and {@link sseDone}) to the bytes of an SSE stream. */
export function createSseEncoder(): TransformStream<SseMessage, Uint8Array> {
  const encoder = new TextEncoder();
  return new TransformStream({
    transform(message, controller) {
      controller.enqueue(encoder.encode(formatSseEvent(message)));
    },
  });
}
