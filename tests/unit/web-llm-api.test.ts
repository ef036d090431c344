import { describe, expect, it } from 'vitest';
import { createRouter } from '../../src/api/index.js';
import { createFakeEngine } from '../../src/api/testing/fake-engine.js';
import { createMemoryStore } from '../../src/api/testing/memory-store.js';
import { ndjsonValues, sseData } from '../../src/api/testing/router-harness.js';
import { modelRecordFixture } from '../../src/api/testing/model-record-fixture.js';
import { createEngineSwitch, createWebLlmEngine } from '../../src/engine/index.js';
import { mlcRecordFixture } from '../../src/engine/testing/mlc-record-fixture.js';
import { createScriptedWebLlm } from '../../src/engine/testing/scripted-web-llm.js';

const mlc = 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC';

/** The API over the engine switch: GGUF on a fake engine, MLC on web-llm's own MLCEngine (scripted). */
function setup() {
  const store = createMemoryStore([modelRecordFixture({ id: 'lfm2' }), mlcRecordFixture(mlc)]);
  const scripted = createScriptedWebLlm(() => ({ pieces: ['Bon', 'jour', '!'] }));
  const engine = createEngineSwitch({
    store,
    engines: {
      gguf: createFakeEngine(() => ({ tokens: ['gguf'] })),
      mlc: createWebLlmEngine({
        store,
        origin: 'http://lmtab.test',
        createEngine: () => Promise.resolve(scripted.engine),
        dropCopies: () => Promise.resolve(),
        probe: () =>
          Promise.resolve({
            adapter: 'Test GPU',
            shaderF16: true,
            cores: 2,
            crossOriginIsolated: true,
          }),
      }),
    },
  });
  const router = createRouter({ engine, store, version: '0.1.0', clock: () => 0 });
  const post = (path: string, body: unknown) =>
    router.handle(
      new Request(`http://lmtab.test${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
  return { post, scripted };
}

describe('/v1 and /api answer an MLC model like any other', () => {
  it('streams an OpenAI chat completion with usage, ending with [DONE]', async () => {
    const { post, scripted } = setup();
    const response = await post('/v1/chat/completions', {
      model: mlc,
      messages: [
        { role: 'system', content: 'Reply in French.' },
        { role: 'user', content: 'Hello' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = sseData([await response.text()]);
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1) as {
      choices: { delta?: { content?: string }; finish_reason?: string }[];
      usage?: unknown;
    }[];
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    expect(text).toBe('Bonjour!');
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe('stop');
    expect(chunks.at(-1)!.usage).toMatchObject({ completion_tokens: 3 });
    expect(scripted.prompts[0]).toContain('Reply in French.');
    expect(scripted.genConfigs[0]).toMatchObject({ temperature: 0 });
  });

  it('answers native /api/chat as NDJSON', async () => {
    const { post } = setup();
    const response = await post('/api/chat', {
      model: mlc,
      messages: [{ role: 'user', content: 'Hello' }],
      options: { top_k: 40, num_predict: 2 },
    });
    expect(response.status).toBe(200);
    const lines = ndjsonValues<{ message?: { content: string } }>([await response.text()]);
    expect(lines.map((l) => l.message?.content ?? '').join('')).toBe('Bonjour');
    expect(lines.at(-1)).toMatchObject({ done: true, done_reason: 'length', eval_count: 2 });
  });

  it('sends a GGUF model to its own engine through the same paths', async () => {
    const { post, scripted } = setup();
    const response = await post('/v1/chat/completions', {
      model: 'lfm2',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect((await response.json()).choices[0].message.content).toBe('gguf');
    expect(scripted.reloads).toEqual([]);
  });
});
