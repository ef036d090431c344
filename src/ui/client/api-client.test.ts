import { describe, expect, it } from 'vitest';
import { routerHarness } from '../../api/testing/router-harness.js';
import type { RouterHarnessOptions } from '../../api/testing/router-harness.js';
import { LmtabError } from '../../errors/index.js';
import { createApiClient } from './api-client.js';
import { failureText } from './failure-text.js';

/** A client of a real router over an engine double, as the page's service worker would serve it. */
function client(options: RouterHarnessOptions = {}) {
  const harness = routerHarness(options);
  const api = createApiClient({
    fetch: (input, init) =>
      harness.router.handle(new Request(new URL(String(input), 'http://lmtab.test'), init)),
  });
  return { api, harness };
}

const chat = {
  model: 'lfm2-350m',
  messages: [{ role: 'user', content: 'Hi' }],
  stream: true as const,
  stream_options: { include_usage: true },
};

describe('createApiClient', () => {
  it('streams chat chunks through the one SSE decoder', async () => {
    const { api } = client({ script: () => ({ tokens: ['Hel', 'lo'] }) });
    const text: string[] = [];
    for await (const chunk of api.streamChat(chat)) {
      text.push(chunk.choices?.[0]?.delta?.content ?? '');
    }
    expect(text.join('')).toBe('Hello');
  });

  it('keeps the code of a refusal and of an error after the stream began', async () => {
    const { api } = client();
    const refused = await api
      .streamChat({ ...chat, model: 'nope' })
      .next()
      .catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(LmtabError);
    expect(refused).toMatchObject({ code: 'model_not_found' });
    expect(failureText(refused)).toMatch(/^Model "nope" not found: .* \(model_not_found\)$/);

    const failing = client({
      script: () => ({ tokens: ['a'], failAfter: new LmtabError('engine_failure', 'Lost.') }),
    });
    const broken = await (async () => {
      for await (const _ of failing.api.streamChat(chat)) void _;
    })().catch((caught: unknown) => caught);
    expect(broken).toMatchObject({ code: 'engine_failure', message: 'Lost.' });
    expect(failureText(broken)).toBe('Lost. (engine_failure)');
  });

  it('loads, unloads, deletes and reads the engine status; failures keep their code', async () => {
    const { api, harness } = client();
    await api.loadModel('lfm2-350m');
    expect((await api.engineStatus()).loaded.map((m) => m.model)).toEqual(['lfm2-350m']);
    await api.unloadModel('lfm2-350m');
    await api.deleteModel('lfm2-350m');
    expect(await harness.store.list()).toEqual([]);
    await expect(api.deleteModel('lfm2-350m')).rejects.toMatchObject({ code: 'model_not_found' });
  });
});
