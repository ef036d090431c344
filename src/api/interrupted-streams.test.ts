import { describe, expect, it, vi } from 'vitest';
import { routerHarness } from './testing/router-harness.js';

const model = 'lfm2-350m';
const tokens = Array.from({ length: 40 }, (_, i) => ` t${i}`);

/** One streamed request per surface, each long enough to be cut mid-answer. */
const surfaces: [string, string, Record<string, unknown>][] = [
  ['chat completions', '/v1/chat/completions', { messages: [{ role: 'user', content: 'Hi' }] }],
  ['completions', '/v1/completions', { prompt: 'Hi' }],
  ['responses', '/v1/responses', { input: 'Hi' }],
  ['messages', '/v1/messages', { max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] }],
  ['ollama chat', '/api/chat', { messages: [{ role: 'user', content: 'Hi' }] }],
  ['ollama generate', '/api/generate', { prompt: 'Hi' }],
];

describe('a streamed answer the client stops reading', () => {
  for (const [name, path, body] of surfaces) {
    for (const reads of [1, 4]) {
      it(`${name}: ends the generation after ${reads} read(s)`, async () => {
        const { send, engine } = routerHarness({ script: () => ({ tokens }) });
        const response = await send(path, { model, stream: true, ...body });
        expect(response.status).toBe(200);
        const reader = response.body!.getReader();
        for (let i = 0; i < reads; i++) expect((await reader.read()).done).toBe(false);
        await reader.cancel();
        await vi.waitFor(() => expect(engine.running).toBe(0));
        expect(engine.signals[0]?.aborted).toBe(true);
      });
    }
  }

  it('responses: a whole stream read to the end ends the generation and stores the answer', async () => {
    const { send, engine, get } = routerHarness({ script: () => ({ tokens }) });
    const response = await send('/v1/responses', { model, stream: true, input: 'Hi' });
    const text = await response.text();
    expect(text).toContain('event: response.completed');
    expect(engine.running).toBe(0);
    const id = /"id":"(resp_[^"]+)"/.exec(text)?.[1];
    expect((await get(`/v1/responses/${id}`)).status).toBe(200);
  });

  it('an aborted request signal ends a generation nobody reads', async () => {
    const { send, engine } = routerHarness({ script: () => ({ tokens }) });
    const controller = new AbortController();
    const response = await send(
      '/v1/responses',
      { model, stream: true, input: 'Hi' },
      { signal: controller.signal },
    );
    expect(response.status).toBe(200);
    controller.abort();
    await vi.waitFor(() => expect(engine.running).toBe(0));
  });
});
