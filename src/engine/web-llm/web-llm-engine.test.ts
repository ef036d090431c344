import type { AppConfig, MLCEngineConfig } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import { LmtabError } from '../../errors/index.js';
import type { ModelRecord } from '../../store/index.js';
import type { Capabilities } from '../gpu/capability-probe.js';
import type { GenerateEvent, GenerateRequest } from '../engine.js';
import { createScriptedWebLlm, type PipelineScript } from '../testing/scripted-web-llm.js';
import { mlcRecordFixture } from '../testing/mlc-record-fixture.js';
import { createWebLlmEngine, webLlmModelRecord } from './web-llm-engine.js';

const gpu: Capabilities = {
  adapter: 'Test GPU',
  shaderF16: true,
  features: ['shader-f16'],
  cores: 2,
  crossOriginIsolated: true,
};

function setup(
  options: {
    records?: ModelRecord[];
    script?: (prompt: string) => PipelineScript;
    caps?: Capabilities;
    failReload?: Error;
  } = {},
) {
  const records = new Map((options.records ?? [mlcRecordFixture()]).map((r) => [r.id, r]));
  const scripted = createScriptedWebLlm(options.script, { failReload: options.failReload });
  const configs: MLCEngineConfig[] = [];
  const dropped: { modelId: string; appConfig: AppConfig }[] = [];
  const engine = createWebLlmEngine({
    store: { get: (id) => Promise.resolve(records.get(id)), touch: () => Promise.resolve() },
    origin: 'https://lmtab.test',
    createEngine: (config) => {
      configs.push(config);
      return Promise.resolve(scripted.engine);
    },
    dropCopies: (modelId, appConfig) => {
      dropped.push({ modelId, appConfig });
      return Promise.resolve();
    },
    probe: () => Promise.resolve(options.caps ?? gpu),
    clock: () => 1_000,
  });
  return { engine, scripted, configs, dropped };
}

function chat(overrides: Partial<GenerateRequest> = {}): GenerateRequest {
  return {
    model: 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC',
    input: {
      kind: 'chat',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Hi there' }] },
      ],
    },
    sampling: {},
    ...overrides,
  };
}

async function collect(events: AsyncIterable<GenerateEvent>): Promise<GenerateEvent[]> {
  const all: GenerateEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

async function failure(promise: Promise<unknown>): Promise<LmtabError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LmtabError);
  return error as LmtabError;
}

describe('createWebLlmEngine, driving web-llm’s own MLCEngine', () => {
  it('streams the pieces web-llm yields, then usage and timings from its usage chunk', async () => {
    const { engine, scripted } = setup();
    const events = await collect(engine.generate(chat({ sampling: { temperature: 0 } })));
    expect(events).toEqual([
      { type: 'token', text: 'Hello' },
      { type: 'token', text: ',' },
      { type: 'token', text: ' world' },
      {
        type: 'done',
        finishReason: 'stop',
        usage: { promptTokens: 7, completionTokens: 3 },
        timings: { loadMs: 0, promptMs: 250, decodeMs: 40, totalMs: 0 },
      },
    ]);
    // web-llm's conversation code rendered lmtab's messages with the model's template.
    expect(scripted.prompts).toEqual([
      '<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi there<|im_end|>\n<|im_start|>assistant\n',
    ]);
    expect(scripted.genConfigs[0]).toMatchObject({ temperature: 0 });
  });

  it('passes sampling to web-llm’s generation config and ends with "length" at the token limit', async () => {
    const { engine, scripted } = setup({ script: () => ({ pieces: ['a', 'b', 'c', 'd'] }) });
    const events = await collect(
      engine.generate(
        chat({
          sampling: {
            temperature: 0.5,
            topP: 0.9,
            topK: 40,
            minP: 0.05,
            repeatPenalty: 1.1,
            frequencyPenalty: 0.2,
            presencePenalty: 0.3,
            stop: ['\n\n'],
            maxTokens: 2,
            ignoreEos: true,
          },
        }),
      ),
    );
    expect(events.filter((e) => e.type === 'token').map((e) => e.text)).toEqual(['a', 'b']);
    expect(events.at(-1)).toMatchObject({
      type: 'done',
      finishReason: 'length',
      usage: { completionTokens: 2 },
    });
    expect(scripted.genConfigs[0]).toEqual({
      temperature: 0.5,
      top_p: 0.9,
      repetition_penalty: 1.1,
      frequency_penalty: 0.2,
      presence_penalty: 0.3,
      stop: ['\n\n'],
      max_tokens: 2,
      ignore_eos: true,
    });
  });

  it('stops a running generation with interruptGenerate when the request aborts', async () => {
    const { engine } = setup({
      script: () => ({ pieces: Array.from({ length: 200 }, (_, i) => `t${i} `), stepMs: 5 }),
    });
    const controller = new AbortController();
    const seen: string[] = [];
    const error = await failure(
      (async () => {
        for await (const event of engine.generate(chat(), { signal: controller.signal })) {
          if (event.type === 'token') seen.push(event.text);
          if (seen.length === 3) controller.abort();
        }
      })(),
    );
    expect(error.code).toBe('aborted');
    expect(seen.length).toBeLessThan(10);
    // The next request runs from a fresh conversation (web-llm resets after an abort).
    const next = await collect(engine.generate(chat()));
    expect(next.at(-1)).toMatchObject({ type: 'done', finishReason: 'stop' });
  });

  it('runs generations one at a time; one aborted while waiting leaves the running one alone', async () => {
    const { engine, scripted } = setup({ script: () => ({ pieces: ['x', 'y', 'z'], stepMs: 20 }) });
    const controller = new AbortController();
    const first = collect(engine.generate(chat()));
    const second = collect(engine.generate(chat(), { signal: controller.signal }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    expect((await failure(second)).code).toBe('aborted');
    const events = await first;
    expect(events.filter((e) => e.type === 'token').map((e) => e.text)).toEqual(['x', 'y', 'z']);
    expect(events.at(-1)).toMatchObject({ finishReason: 'stop' });
    expect(scripted.prompts).toHaveLength(1);
  });

  it('completes a raw prompt through web-llm’s text completion', async () => {
    const { engine, scripted } = setup({ script: () => ({ pieces: [' Paris', '.'] }) });
    const events = await collect(
      engine.generate(chat({ input: { kind: 'prompt', prompt: 'The capital of France is' } })),
    );
    expect(events.filter((e) => e.type === 'token').map((e) => e.text)).toEqual([' Paris', '.']);
    expect(scripted.prompts).toEqual(['The capital of France is']);
  });

  it('loads from the store’s URLs, with the context length asked for, and drops web-llm’s copy', async () => {
    const { engine, scripted, configs, dropped } = setup();
    const loaded = await engine.load('Qwen2.5-0.5B-Instruct-q4f32_1-MLC', { contextLength: 2048 });
    expect(loaded).toMatchObject({
      model: 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC',
      contextLength: 2048,
      parallel: 1,
      info: { engine: 'web-llm', backend: 'webgpu', adapter: 'Test GPU', gpuLayers: 24 },
    });
    expect(scripted.reloads).toEqual([
      { modelId: 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC', chatOpts: { context_window_size: 2048 } },
    ]);
    expect(configs[0].appConfig).toEqual({
      cacheBackend: 'cache',
      model_list: [
        {
          model: 'https://lmtab.test/lmtab-store/Qwen2.5-0.5B-Instruct-q4f32_1-MLC/resolve/main/',
          model_id: 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC',
          model_lib:
            '/lmtab-store/Qwen2.5-0.5B-Instruct-q4f32_1-MLC/resolve/main/lib/Qwen2-0.5B-Instruct-q4f32_1-ctx4k_cs1k-webgpu.wasm',
          model_type: 0,
          required_features: [],
          overrides: { context_window_size: 4096 },
        },
      ],
    });
    expect(dropped).toEqual([
      { modelId: 'Qwen2.5-0.5B-Instruct-q4f32_1-MLC', appConfig: configs[0].appConfig },
    ]);
    expect(engine.loaded()).toHaveLength(1);
    await engine.unload();
    expect(engine.loaded()).toEqual([]);
    expect(scripted.unloads).toBe(1);
  });

  it('says why loading failed, unloads web-llm and still drops its copy', async () => {
    const { engine, scripted, dropped } = setup({
      failReload: new Error('WebAssembly.instantiate(): expected magic word 00 61 73 6d'),
    });
    const error = await failure(collect(engine.generate(chat())));
    expect(error.code).toBe('engine_failure');
    expect(error.message).toBe(
      'Loading Qwen2.5-0.5B-Instruct-q4f32_1-MLC with web-llm on WebGPU (Test GPU) failed: ' +
        'WebAssembly.instantiate(): expected magic word 00 61 73 6d',
    );
    expect(scripted.unloads).toBe(1);
    expect(dropped).toHaveLength(1);
  });

  it('refuses before loading when there is no adapter, or no shader-f16 for an f16 model', async () => {
    const none = setup({
      caps: { cores: 2, crossOriginIsolated: true, noAdapterReason: 'this browser has no WebGPU' },
    });
    const noGpu = await failure(collect(none.engine.generate(chat())));
    expect(noGpu.message).toBe(
      'Model "Qwen2.5-0.5B-Instruct-q4f32_1-MLC" is an MLC model, which web-llm runs only on ' +
        'WebGPU, but this browser has no WebGPU.',
    );
    expect(none.scripted.reloads).toEqual([]);
    expect(await none.engine.info()).toMatchObject({
      engine: 'web-llm',
      fallbackReason: 'web-llm runs only on WebGPU: this browser has no WebGPU',
    });

    const f16 = mlcRecordFixture('Qwen2.5-0.5B-Instruct-q4f16_1-MLC', {
      requiredFeatures: ['shader-f16'],
    });
    const swiftShader = setup({
      records: [f16],
      caps: { ...gpu, adapter: 'google swiftshader', shaderF16: false, features: [] },
    });
    const noF16 = await failure(collect(swiftShader.engine.generate(chat({ model: f16.id }))));
    expect(noF16.message).toBe(
      'Model "Qwen2.5-0.5B-Instruct-q4f16_1-MLC" needs the WebGPU feature shader-f16, which the ' +
        "adapter (google swiftshader) lacks: use the model's q4f32 variant.",
    );
  });

  it('refuses images for a text-only model before waiting for a turn', async () => {
    const vision = mlcRecordFixture('Phi-3.5-vision-instruct-q4f32_1-MLC', { vision: true });
    const { engine } = setup({ records: [mlcRecordFixture(), vision] });
    const withImage = (model: string) =>
      chat({
        model,
        input: {
          kind: 'chat',
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'What is this?' },
                { type: 'image', data: new Uint8Array([137, 80, 78, 71]), mimeType: 'image/png' },
              ],
            },
          ],
        },
      });
    const refused = await failure(collect(engine.generate(withImage(mlcRecordFixture().id))));
    expect(refused).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(engine.supportsImages(vision)).toBe(true);
    expect(engine.supportsImages(mlcRecordFixture())).toBe(false);
  });

  it('builds web-llm’s model record with a manifest and SRI hashes when the catalog has them', () => {
    const record = mlcRecordFixture('gemma-4-E2B-it-q4f32_1-MLC', {
      manifestFile: 'mlc-model-manifest.json',
      integrity: { config: 'sha256-abc' },
      vision: true,
    });
    expect(webLlmModelRecord(record, 'http://127.0.0.1:1234')).toMatchObject({
      model: 'http://127.0.0.1:1234/lmtab-store/gemma-4-E2B-it-q4f32_1-MLC/resolve/main/',
      model_manifest: 'mlc-model-manifest.json',
      integrity: { config: 'sha256-abc' },
      model_type: 2,
    });
  });
});
