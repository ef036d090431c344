import { describe, expect, it } from 'vitest';
import { harnessNow, readChunks, routerHarness, sseData } from '../../testing/router-harness.js';

const created = harnessNow / 1000;

describe('POST /v1/completions', () => {
  it('answers a text_completion from a raw prompt', async () => {
    const { send, engine } = routerHarness();
    const response = await send('/v1/completions', {
      model: 'lfm2-350m',
      prompt: 'Once upon a time',
      max_tokens: 16,
      top_k: 0,
      echo: false,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      id: expect.stringMatching(/^cmpl-[0-9a-f]{24}$/) as unknown,
      object: 'text_completion',
      created,
      model: 'lfm2-350m',
      choices: [{ index: 0, text: 'Hello, world', logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
    });
    expect(engine.requests).toEqual([
      {
        model: 'lfm2-350m',
        input: { kind: 'prompt', prompt: 'Once upon a time' },
        sampling: { maxTokens: 16, topK: 0 },
      },
    ]);
  });

  it('streams text_completion chunks, the usage chunk, then [DONE]', async () => {
    const { send } = routerHarness();
    const response = await send('/v1/completions', {
      model: 'lfm2-350m',
      prompt: ['Once'],
      max_tokens: 2,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(response.headers.get('Content-Type')).toBe('text/event-stream');
    const chunks = await readChunks(response);
    const id = (sseData(chunks)[0] as { id: string }).id;
    const head = `{"id":"${id}","created":${created},"model":"lfm2-350m","object":"text_completion"`;
    const choice = (text: string, finish = 'null') =>
      `${head},"choices":[{"index":0,"text":"${text}","logprobs":null,"finish_reason":${finish}}],"usage":null}`;
    expect(chunks).toEqual([
      `data: ${choice('Hello')}\n\n`,
      `data: ${choice(',')}\n\n`,
      `data: ${choice('', '"length"')}\n\n`,
      `data: ${head},"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}}\n\n`,
      'data: [DONE]\n\n',
    ]);
  });
});
