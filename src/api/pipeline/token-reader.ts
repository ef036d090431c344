/** How the relay log reads an answer's token count from one protocol's JSON values and events. */
export interface TokenReader {
  /** The count an answer (or its last stream event) reports itself, if this value has one. */
  reported(value: Record<string, unknown>): number | undefined;
  /** Whether a stream event carries generated text (one token per event in lmtab's encoders). */
  carriesText(value: Record<string, unknown>): boolean;
}

/** A number, or undefined. */
export function countOf(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

/** Whether a value is text with something in it. */
export function isText(value: unknown): boolean {
  return typeof value === 'string' && value !== '';
}

/** A field of an object-like value, or undefined. */
export function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)[name]
    : undefined;
}
