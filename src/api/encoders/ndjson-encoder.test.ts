import { describe, expect, it } from 'vitest';
import { createNdjsonEncoder, formatNdjsonLine } from './ndjson-encoder.js';

describe('formatNdjsonLine', () => {
  it('writes compact JSON and one newline, escaping newlines inside strings', () => {
    expect(formatNdjsonLine({ response: 'a\nb', done: false })).toBe(
      '{"response":"a\\nb","done":false}\n',
    );
  });
});

describe('createNdjsonEncoder', () => {
  it('turns each value into the bytes of one line, chunk by chunk', async () => {
    const source = streamOf([{ a: 1 }, { error: 'x' }]);
    const reader = source.pipeThrough(createNdjsonEncoder()).getReader();
    const decoder = new TextDecoder();
    const lines: string[] = [];
    for (let r = await reader.read(); r.done !== true; r = await reader.read()) {
      lines.push(decoder.decode(r.value));
    }
    expect(lines).toEqual(['{"a":1}\n', '{"error":"x"}\n']);
  });
});

function streamOf(values: unknown[]): ReadableStream<unknown> {
  return new ReadableStream({
    start(controller) {
      for (const value of values) controller.enqueue(value);
      controller.close();
    },
  });
}
