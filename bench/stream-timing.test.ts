import { describe, expect, it } from 'vitest';
import {
  clientDecodeTokS,
  processedPromptTokens,
  StreamClock,
  timeSseStream,
} from './stream-timing.js';

function sse(events: string[], times: number[], clockTime: { now: number }) {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i === events.length) return controller.close();
      clockTime.now = times[i]!;
      controller.enqueue(encoder.encode(events[i]!));
      i += 1;
    },
  });
}

const chunk = (content: string) =>
  `data: ${JSON.stringify({ choices: [{ delta: { content } }], usage: null })}\n\n`;

describe('timeSseStream', () => {
  it('times the first and last text pieces and reads the usage chunk', async () => {
    const time = { now: 0 };
    const body = sse(
      [
        chunk(''),
        chunk(' bc'),
        chunk(' fg') + chunk(' kz'),
        `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 6 } } })}\n\ndata: [DONE]\n\n`,
      ],
      [5, 40, 100, 130],
      time,
    );
    const timing = await timeSseStream(body, new StreamClock(10, () => time.now));
    expect(timing).toMatchObject({
      ttftMs: 30,
      spanMs: 60,
      totalMs: 120,
      pieces: 3,
      text: ' bc fg kz',
      promptTokens: 9,
      cachedPromptTokens: 6,
      completionTokens: 4,
    });
    expect(processedPromptTokens(timing)).toBe(3);
    expect(clientDecodeTokS(timing)).toBe(50);
  });

  it('rejects on an error event after the stream began', async () => {
    const time = { now: 0 };
    const body = sse(
      [chunk(' bc'), `data: ${JSON.stringify({ error: { message: 'engine failed' } })}\n\n`],
      [1, 2],
      time,
    );
    await expect(timeSseStream(body, new StreamClock(0, () => time.now))).rejects.toThrow(
      'engine failed',
    );
  });
});
