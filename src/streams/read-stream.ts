import { LmtabError, readErrorBody } from '../errors/index.js';
import { createNdjsonDecoder } from './ndjson-decoder.js';
import { createSseDecoder } from './sse-decoder.js';
import type { SseEvent, StreamDecoder } from './sse-decoder.js';

/**
 * Runs a body through a push decoder and yields what it emits, as the bytes arrive. A consumer
 * that stops early (an error event, a person pressing Stop) cancels the body.
 */
async function* decodeBody<T>(
  body: ReadableStream<Uint8Array>,
  decoder: (emit: (value: T) => void) => StreamDecoder,
): AsyncGenerator<T> {
  const ready: T[] = [];
  const decode = decoder((value) => ready.push(value));
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) decode.end();
      else decode.push(value);
      yield* ready.splice(0);
      if (done) return;
    }
  } finally {
    void reader.cancel().catch(() => undefined);
  }
}

/** Yields the events of a `text/event-stream` body as they arrive. */
export function readSseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  return decodeBody(body, createSseDecoder);
}

/** Yields the non-empty lines of an `application/x-ndjson` body as they arrive. */
export function readNdjsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  return decodeBody(body, createNdjsonDecoder);
}

/** Parses one streamed JSON payload; a failure is an `unexpected_response` naming the text. */
export function parseStreamedJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new LmtabError(
      'unexpected_response',
      `Expected JSON in each ${what}, got ${JSON.stringify(text.slice(0, 80))}.`,
      { cause: error },
    );
  }
}

/** The JSON of one SSE `data:` payload; `done` at `[DONE]`; an error event is thrown, code kept. */
function sseJson(data: string): { done: true } | { done: false; value: unknown } {
  if (data === '[DONE]') return { done: true };
  const value = parseStreamedJson(data, 'SSE event');
  const failure = readErrorBody(value);
  if (failure !== undefined) throw failure;
  return { done: false, value };
}

/**
 * Yields each SSE event's `data:` parsed as JSON until `data: [DONE]`; an error event
 * (`{"error": ...}`, OpenAI's or Anthropic's) is thrown as the LmtabError it states, code kept.
 */
export async function* readSseJson<T>(body: ReadableStream<Uint8Array>): AsyncGenerator<T> {
  for await (const { data } of readSseEvents(body)) {
    const read = sseJson(data);
    if (read.done) return;
    yield read.value as T;
  }
}

/**
 * {@link readSseJson} with a callback, called in the same turn as the bytes are read: for timing
 * pieces on the client's clock without the hops of an async generator. Resolves at the end of
 * the body or at `[DONE]`.
 */
export async function eachSseJson<T>(
  body: ReadableStream<Uint8Array>,
  onValue: (value: T) => void,
): Promise<void> {
  let done = false;
  const decoder = createSseDecoder(({ data }) => {
    if (done) return;
    const read = sseJson(data);
    if (read.done) done = true;
    else onValue(read.value as T);
  });
  const reader = body.getReader();
  try {
    while (!done) {
      const { done: ended, value } = await reader.read();
      if (ended) {
        decoder.end();
        return;
      }
      decoder.push(value);
    }
  } finally {
    void reader.cancel().catch(() => undefined);
  }
}

/**
 * Yields each NDJSON line parsed as JSON; an `{"error": ..., "code": ...}` line (a failure after
 * the stream began) is thrown as the LmtabError it states, code kept.
 */
export async function* readNdjson<T>(body: ReadableStream<Uint8Array>): AsyncGenerator<T> {
  for await (const line of readNdjsonLines(body)) {
    const value = parseStreamedJson(line, 'NDJSON line');
    const failure = readErrorBody(value);
    if (failure !== undefined) throw failure;
    yield value as T;
  }
}
