import { describe, expect, it } from 'vitest';
import { LmtabError } from '../errors/index.js';
import { readNdjson, readSseEvents, readSseJson } from './read-stream.js';

/** A body that arrives in exactly these pieces. */
function body(...pieces: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
}

async function all<T>(values: AsyncIterable<T>): Promise<T[]> {
  const seen: T[] = [];
  for await (const value of values) seen.push(value);
  return seen;
}

describe('readSseEvents', () => {
  it('reads LF, CRLF and CR line ends, multi-line data and events split anywhere', async () => {
    const events = await all(
      readSseEvents(
        body('data: {"a":', '1}\n\n', 'event: ping\r\ndata: x\r\n\r', '\ndata: one\ndata: two\r\r'),
      ),
    );
    expect(events).toEqual([
      { data: '{"a":1}', event: undefined, id: undefined },
      { data: 'x', event: 'ping', id: undefined },
      { data: 'one\ntwo', event: undefined, id: undefined },
    ]);
  });

  it('splits a multi-byte character across chunks without damage', async () => {
    const bytes = new TextEncoder().encode('data: é\n\n');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 7));
        controller.enqueue(bytes.slice(7));
        controller.close();
      },
    });
    expect((await all(readSseEvents(stream))).map((e) => e.data)).toEqual(['é']);
  });
});

describe('readSseJson', () => {
  it('yields JSON payloads until [DONE] and throws an error event with its code', async () => {
    expect(
      await all(readSseJson(body('data: {"a":1}\n\ndata: [DONE]\n\ndata: {"b":2}\n\n'))),
    ).toEqual([{ a: 1 }]);
    const failing = readSseJson(
      body('data: {"a":1}\n\n', 'data: {"error":{"message":"Lost.","code":"no_engine"}}\n\n'),
    );
    const error = await all(failing).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LmtabError);
    expect(error).toMatchObject({ code: 'no_engine', message: 'Lost.' });
  });
});

describe('readNdjson', () => {
  it('yields each line, the last one without a newline too, and throws an error line with its code', async () => {
    expect(await all(readNdjson(body('{"a":1}\r\n{"b"', ':2}\n\n{"c":3}')))).toEqual([
      { a: 1 },
      { b: 2 },
      { c: 3 },
    ]);
    const error = await all(
      readNdjson(body('{"a":1}\n{"error":"Full.","code":"quota_exceeded"}\n')),
    ).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'quota_exceeded', message: 'Full.' });
    const garbled = await all(readNdjson(body('not json\n'))).catch((caught: unknown) => caught);
    expect(garbled).toMatchObject({ code: 'unexpected_response' });
  });
});
