/** Formats one NDJSON line: the value as JSON and a newline. */
export function formatNdjsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** A TransformStream from JSON values to the bytes of an NDJSON stream, one line per value. */
export function createNdjsonEncoder(): TransformStream<unknown, Uint8Array> {
  const encoder = new TextEncoder();
  return new TransformStream({
    transform(value, controller) {
      controller.enqueue(encoder.encode(formatNdjsonLine(value)));
    },
  });
}
