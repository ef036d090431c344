// Only logs use this: the relay and the tab note which model a request named, nothing answers by it.

/** Bodies up to this size are parsed whole; longer ones (images) are searched at the start only. */
const parseWholeBytes = 64 * 1024;
const modelField = /"model"\s*:\s*"((?:[^"\\]|\\.){1,256})"/;

/** The top-level `model` of a JSON request body, for a request log; undefined when absent. */
export function readModelName(body: Uint8Array): string | undefined {
  const text = new TextDecoder().decode(body.subarray(0, parseWholeBytes));
  if (body.byteLength <= parseWholeBytes) {
    try {
      const value = JSON.parse(text) as unknown;
      if (typeof value === 'object' && value !== null && 'model' in value) {
        return typeof value.model === 'string' ? value.model : undefined;
      }
      return undefined;
    } catch {
      // Not JSON: fall through to the search, which finds nothing in most such bodies.
    }
  }
  const match = modelField.exec(text);
  if (!match) return undefined;
  try {
    return JSON.parse(`"${match[1]}"`) as string;
  } catch {
    return undefined;
  }
}

/** A multipart/form-data `model` field (OpenAI's audio uploads): its part header, then its value. */
const formModelField = /name="model"\r\n(?:[^\r\n]{1,200}\r\n){0,4}\r\n([^\r\n]{1,256})\r\n/;

/** Bytes kept of a body's end: a form's `model` field after its file (the SDKs' order). */
const tailBytes = 1024;

/**
 * Collects what the request log needs of a body streamed in pieces, in bounded memory: its first
 * 64 KiB (a JSON body's `model`, or a form's before its file) and its last 1 KiB (a form's after).
 */
export class ModelNameSniffer {
  #head: Uint8Array[] = [];
  #headBytes = 0;
  #tail = new Uint8Array(0);

  /** Takes the next piece of the body. */
  push(chunk: Uint8Array): void {
    if (this.#headBytes < parseWholeBytes + 1) {
      const part = chunk.slice(0, parseWholeBytes + 1 - this.#headBytes);
      this.#head.push(part);
      this.#headBytes += part.byteLength;
    }
    if (chunk.byteLength >= tailBytes) {
      this.#tail = chunk.slice(chunk.byteLength - tailBytes);
      return;
    }
    const joined = new Uint8Array(this.#tail.byteLength + chunk.byteLength);
    joined.set(this.#tail);
    joined.set(chunk, this.#tail.byteLength);
    this.#tail = joined.slice(Math.max(0, joined.byteLength - tailBytes));
  }

  /** Whether any byte arrived. */
  get empty(): boolean {
    return this.#headBytes === 0;
  }

  /** The model the body names, as {@link readModelName} reads it, or a form's `model` field. */
  name(): string | undefined {
    const head = new Uint8Array(this.#headBytes);
    let offset = 0;
    for (const part of this.#head) {
      head.set(part, offset);
      offset += part.byteLength;
    }
    const named = readModelName(head);
    if (named !== undefined) return named;
    for (const bytes of [head, this.#tail]) {
      const match = formModelField.exec(new TextDecoder().decode(bytes));
      if (match) return match[1];
    }
    return undefined;
  }
}
