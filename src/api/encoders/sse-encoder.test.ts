import { describe, expect, it } from 'vitest';
import { createSseEncoder, formatSseEvent, sseDone } from './sse-encoder.js';

describe('formatSseEvent', () => {
  it('writes one data line of compact JSON and a blank line', () => {
    expect(formatSseEvent({ a: 'x\ny', b: [1] })).toBe('data: {"a":"x\\ny","b":[1]}\n\n');
  });

  it('writes the end marker', () => {
    expect(formatSseEvent(sseDone)).toBe('data: [DONE]\n\n');
  });
});

describe('createSseEncoder', () => {
  it('turns each message into the bytes of one event, chunk by chunk', async () => {
    const source = streamOf([{ n: 1 }, { text: 'é' }, sseDone]);
    const reader = source.pipeThrough(createSseEncoder()).getReader();
    const chunks: number[][] = [];
    for (let r = await reader.read(); r.done !== true; r = await reader.read()) {
      chunks.push([...r.value]);
    }
    expect(chunks).toEqual([
      [...new TextEncoder().encode('data: {"n":1}\n\n')],
      [...new TextEncoder().encode('data: {"text":"é"}\n\n')],
      [...new TextEncoder().encode('data: [DONE]\n\n')],
    ]);
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
