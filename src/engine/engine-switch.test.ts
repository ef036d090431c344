import { describe, expect, it } from 'vitest';
import { createFakeEngine } from '../api/testing/fake-engine.js';
import { modelRecordFixture } from '../api/testing/model-record-fixture.js';
import type { ModelRecord } from '../store/index.js';
import type { GenerateEvent } from './engine.js';
import { createEngineSwitch } from './engine-switch.js';
import { mlcRecordFixture } from './testing/mlc-record-fixture.js';

function setup() {
  const gguf = createFakeEngine(() => ({ tokens: ['gguf'] }));
  const mlc = createFakeEngine(() => ({ tokens: ['mlc'] }));
  const records: ModelRecord[] = [
    modelRecordFixture({ id: 'lfm2' }),
    { ...modelRecordFixture({ id: 'old' }), format: undefined },
    mlcRecordFixture('qwen-mlc'),
  ];
  const byId = new Map(records.map((r) => [r.id, r]));
  const engine = createEngineSwitch({
    store: { get: (id) => Promise.resolve(byId.get(id)) },
    engines: { gguf, mlc },
  });
  return { engine, gguf, mlc, byId };
}

async function text(events: AsyncIterable<GenerateEvent>): Promise<string> {
  let all = '';
  for await (const event of events) if (event.type === 'token') all += event.text;
  return all;
}

const request = (model: string) => ({
  model,
  input: { kind: 'chat' as const, messages: [] },
  sampling: {},
});

describe('createEngineSwitch', () => {
  it('routes by the record’s format, GGUF when a record has none', async () => {
    const { engine, gguf, mlc } = setup();
    expect(await text(engine.generate(request('lfm2')))).toBe('gguf');
    expect(await text(engine.generate(request('old')))).toBe('gguf');
    expect(await text(engine.generate(request('qwen-mlc')))).toBe('mlc');
    expect(gguf.requests.map((r) => r.model)).toEqual(['lfm2', 'old']);
    expect(mlc.requests.map((r) => r.model)).toEqual(['qwen-mlc']);
  });

  it('sends unknown models to the GGUF engine, which answers model_not_found', async () => {
    const { engine, gguf } = setup();
    await text(engine.generate(request('nope')));
    expect(gguf.requests.map((r) => r.model)).toEqual(['nope']);
  });

  it('unloads the other engine before a model of another format loads', async () => {
    const { engine, gguf, mlc } = setup();
    await engine.load('lfm2');
    expect(engine.loaded().map((m) => m.model)).toEqual(['lfm2']);
    await engine.load('qwen-mlc');
    expect(gguf.unloads).toEqual([undefined]);
    expect(engine.loaded().map((m) => m.model)).toEqual(['qwen-mlc']);
    await engine.unload('qwen-mlc');
    expect(mlc.unloads).toEqual(['qwen-mlc']);
  });

  it('reports the info of the engine holding a model, and asks each engine about images', async () => {
    const { engine, byId } = setup();
    expect((await engine.info()).engine).toBe('fake');
    expect(engine.supportsImages(byId.get('qwen-mlc')!)).toBe(false);
    expect(
      engine.supportsImages({ ...byId.get('lfm2')!, projector: byId.get('lfm2')!.files[0] }),
    ).toBe(true);
  });
});
