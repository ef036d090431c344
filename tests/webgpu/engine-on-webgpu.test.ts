import { createRequire } from 'node:module';
import { crc32, deflateSync } from 'node:zlib';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  createWllamaEngine,
  type ContentPart,
  type Engine,
  type GenerateEvent,
  type GenerateRequest,
} from '../../src/engine/index.js';
import { LmtabError } from '../../src/errors/index.js';
import { ensureEmbeddingFixtures } from '../support/embedding-fixtures.js';
import { ensureFixtures, lfm2Model, writeModelFile } from '../support/lfm2-fixtures.js';
import { weatherParameters } from '../support/tool-schemas.js';
import { fileModelStore } from '../support/webgpu/file-model-store.js';
import { installNodeWebgpu, localFileUrl, type NodeWebgpu } from '../support/webgpu/node-webgpu.js';
import { notOnGpu, readOffload } from '../support/webgpu/offload-report.js';

const require = createRequire(import.meta.url);
const wasmUrl = localFileUrl(require.resolve('@wllama/wllama/esm/wasm/wllama.wasm'));
const ajv = new Ajv({ strict: false });

let gpu: NodeWebgpu;
let store: ReturnType<typeof fileModelStore>;
let engine: Engine;

beforeAll(async () => {
  gpu = await installNodeWebgpu();
  const fixtures = await ensureFixtures('tests/.cache/fixtures');
  const embedding = await ensureEmbeddingFixtures('tests/.cache/fixtures');
  // The tiny F16 model with a vocabulary of words, so that every candidate token has its own text.
  const f16Words = 'tests/.cache/fixtures/tiny-lfm2-f16-words.gguf';
  await writeModelFile(f16Words, lfm2Model({ fillers: 'words', name: 'tiny-lfm2-f16-words' }));
  store = fileModelStore({
    // Q4_K matrices and a Q6_K token table: the K-quant shaders; a vocabulary of words.
    q4km: { model: fixtures.lfm2Q4KM },
    f16: { model: f16Words },
    vision: { model: fixtures.lfm2Vl, projector: fixtures.mmproj },
    bert: { model: embedding.bert },
  });
  engine = createWllamaEngine({ store, wasmUrl, parallel: 2 });
});

afterAll(async () => {
  await engine?.unload();
  gpu?.uninstall();
});

/** The log lines `run` makes the engine's workers write. */
async function logOf<T>(run: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const from = gpu.log.length;
  const result = await run();
  return { result, lines: gpu.log.slice(from) };
}

async function collect(
  target: Engine,
  request: GenerateRequest,
  signal?: AbortSignal,
): Promise<GenerateEvent[]> {
  const events: GenerateEvent[] = [];
  for await (const event of target.generate(request, { signal })) events.push(event);
  return events;
}

const text = (events: GenerateEvent[]) =>
  events.map((e) => (e.type === 'token' ? e.text : '')).join('');

const done = (events: GenerateEvent[]) => {
  const last = events.at(-1);
  if (last?.type !== 'done') throw new Error(`expected a done event last, got ${last?.type}`);
  return last;
};

const user = (...content: ContentPart[]) => ({ role: 'user' as const, content });
const say = (words: string): ContentPart => ({ type: 'text', text: words });

/** A PNG of `width` by `height` RGB pixels (a gradient), encoded here. */
function png(width: number, height: number): Uint8Array {
  const chunk = (type: string, data: Buffer) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, 'latin1');
    data.copy(out, 8);
    out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel
  header[9] = 2; // RGB
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      rows.set([x * 4, y * 4, 128], y * (width * 3 + 1) + 1 + x * 3);
    }
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  // A copy: a Buffer may be a view into a larger pool, and the engine sends `.buffer` on.
  return new Uint8Array(
    Buffer.concat([
      signature,
      chunk('IHDR', header),
      chunk('IDAT', deflateSync(rows)),
      chunk('IEND', Buffer.alloc(0)),
    ]),
  );
}

describe("lmtab's engine on wllama's stock WebGPU build (Dawn on lavapipe, in Node 24)", () => {
  test('the adapter is lavapipe with shader-f16, the one llama.cpp WebGPU needs', async () => {
    expect(gpu.adapter.vendor).toBe('mesa');
    expect(gpu.adapter.features).toContain('shader-f16');
    const planned = await engine.info();
    expect(planned).toMatchObject({ backend: 'webgpu', gpuLayers: 999 });
  });

  test('every layer is offloaded, in one GPU split after the token lookup', async () => {
    const { result, lines } = await logOf(() => engine.load('q4km'));
    const report = readOffload(lines);
    expect(notOnGpu(report), lines.slice(-30).join('\n')).toBeUndefined();
    expect(report.adapter).toMatchObject({ vendor: 'mesa', architecture: 'software' });
    expect(report.layers?.offloaded).toBe(5);
    // Two splits: llama.cpp's input (token embedding lookup) on the CPU, then the whole model on
    // WebGPU. More would mean ops of the model falling back to the CPU.
    expect(report.graph?.splits).toBeLessThanOrEqual(2);
    expect(result.info).toMatchObject({ backend: 'webgpu', gpuLayers: 5, build: 'wllama 3.13.0' });
  });

  test('chat answers', async () => {
    const events = await collect(engine, {
      model: 'q4km',
      input: { kind: 'chat', messages: [user(say('Say something about the sea.'))] },
      sampling: { maxTokens: 12, temperature: 0.7, seed: 1, ignoreEos: true },
    });
    expect(text(events).length).toBeGreaterThan(0);
    expect(done(events)).toMatchObject({
      finishReason: 'length',
      usage: { completionTokens: 12 },
    });
  });

  test('the next turn reuses the prompt cache', async () => {
    const first = [user(say('Name three colours of the sea at dawn, please.'))];
    const answer = await collect(engine, {
      model: 'q4km',
      input: { kind: 'chat', messages: first },
      sampling: { maxTokens: 6, temperature: 0, ignoreEos: true },
    });
    const firstUsage = done(answer).usage;
    const next = await collect(engine, {
      model: 'q4km',
      input: {
        kind: 'chat',
        messages: [
          ...first,
          { role: 'assistant', content: [say(text(answer))] },
          user(say('And at dusk?')),
        ],
      },
      sampling: { maxTokens: 6, temperature: 0, ignoreEos: true },
    });
    const usage = done(next).usage;
    expect(usage.promptTokens).toBeGreaterThan(firstUsage.promptTokens);
    expect(usage.cachedPromptTokens).toBeGreaterThanOrEqual(firstUsage.promptTokens);
  });

  test('a forced tool call has arguments valid against its schema', async () => {
    const parameters = weatherParameters;
    const events = await collect(engine, {
      model: 'q4km',
      input: { kind: 'chat', messages: [user(say('Weather in Oslo this week?'))] },
      tools: [{ name: 'get_weather', description: 'Weather forecast', parameters }],
      toolChoice: { name: 'get_weather' },
      sampling: { maxTokens: 200, temperature: 0.7, seed: 7 },
    });
    const calls = events.filter((e) => e.type === 'tool_call');
    expect(calls[0]).toMatchObject({ index: 0, name: 'get_weather' });
    const args = JSON.parse(calls.map((c) => c.argumentsDelta).join(''));
    const validate = ajv.compile(parameters);
    expect(validate(args), JSON.stringify(validate.errors)).toBe(true);
    // The engine reports `stop`; each protocol's encoder names a call's end (`tool_calls`).
    expect(done(events).finishReason).toBe('stop');
  });

  test('json_schema output is valid JSON of the schema', async () => {
    const schema = {
      type: 'object',
      properties: {
        ok: { type: 'boolean' },
        count: { type: 'integer', minimum: 0, maximum: 99 },
        mood: { enum: ['calm', 'busy'] },
      },
      required: ['ok', 'count', 'mood'],
      additionalProperties: false,
    };
    const events = await collect(engine, {
      model: 'q4km',
      input: { kind: 'chat', messages: [user(say('Report the harbour status as JSON.'))] },
      format: { type: 'json', schema },
      sampling: { maxTokens: 200, temperature: 0.7, seed: 3 },
    });
    const validate = ajv.compile(schema);
    const answer = JSON.parse(text(events));
    expect(validate(answer), JSON.stringify(validate.errors)).toBe(true);
  });

  test('abort ends the request, and the next one is served', async () => {
    const controller = new AbortController();
    const request: GenerateRequest = {
      model: 'q4km',
      input: { kind: 'chat', messages: [user(say('Count to one thousand.'))] },
      sampling: { maxTokens: 2000, temperature: 0, ignoreEos: true },
    };
    let tokens = 0;
    const aborted = (async () => {
      for await (const event of engine.generate(request, { signal: controller.signal })) {
        if (event.type === 'token' && ++tokens === 3) controller.abort();
      }
    })();
    await expect(aborted).rejects.toSatisfy(
      (error) => error instanceof LmtabError && error.code === 'aborted',
    );
    expect(tokens).toBeLessThan(50);
    const next = await collect(engine, { ...request, sampling: { maxTokens: 4, temperature: 0 } });
    expect(done(next).usage.completionTokens).toBeGreaterThan(0);
  });

  test('an image goes through the vision projector on WebGPU', async () => {
    const ask = (content: ContentPart[]) =>
      collect(engine, {
        model: 'vision',
        input: { kind: 'chat', messages: [user(...content)] },
        sampling: { maxTokens: 4, temperature: 0, ignoreEos: true },
      });
    const { result: withImage, lines } = await logOf(() =>
      ask([{ type: 'image', data: png(64, 48), mimeType: 'image/png' }, say('What is this?')]),
    );
    const report = readOffload(lines);
    expect(notOnGpu(report), lines.slice(-30).join('\n')).toBeUndefined();
    expect(report.projectorBackend).toBe('WebGPU');
    expect(report.projectorSplits).toBe(1);
    expect(lines.some((l) => /image decoded \(batch 1\/1\)/.test(l))).toBe(true);
    const textOnly = await ask([say('What is this?')]);
    // The image's tokens are part of the prompt.
    expect(done(withImage).usage.promptTokens).toBeGreaterThan(
      done(textOnly).usage.promptTokens + 16,
    );
  });

  test('an embedding model embeds on WebGPU', async () => {
    const { result, lines } = await logOf(() =>
      engine.embed({
        model: 'bert',
        inputs: ['the tide comes in', 'the tide goes out'],
        truncate: true,
      }),
    );
    expect(notOnGpu(readOffload(lines)), lines.slice(-30).join('\n')).toBeUndefined();
    expect(result.embeddings).toHaveLength(2);
    for (const vector of result.embeddings) {
      const norm = Math.hypot(...vector);
      expect(norm).toBeCloseTo(1, 3);
    }
    expect(result.embeddings[0]).not.toEqual(result.embeddings[1]);
    const loaded = engine.loaded().find((m) => m.model === 'bert');
    expect(loaded?.info).toMatchObject({ backend: 'webgpu' });
  });
});

/** One sampled token and its top alternatives (text to log-probability; ambiguous texts left out). */
interface Step {
  token: string;
  top: Map<string, number>;
}

function stepsOf(events: GenerateEvent[]): Step[] {
  return events.flatMap((e) =>
    e.type === 'token'
      ? (e.logprobs ?? []).map((l) => {
          const texts = l.top.map((t) => t.token);
          const unique = l.top.filter((t) => texts.indexOf(t.token) === texts.lastIndexOf(t.token));
          return { token: l.token, top: new Map(unique.map((t) => [t.token, t.logprob])) };
        })
      : [],
  );
}

/**
 * Compares two runs step by step while they sampled the same token (after a different one their
 * contexts differ): the worst log-probability difference of the alternatives both list.
 */
function compareSteps(a: Step[], b: Step[]): { steps: number; shared: number; worst: number } {
  let steps = 0;
  let shared = 0;
  let worst = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    for (const [token, logprob] of a[i]!.top) {
      const other = b[i]!.top.get(token);
      if (other === undefined) continue;
      shared += 1;
      worst = Math.max(worst, Math.abs(logprob - other));
    }
    steps += 1;
    if (a[i]!.token !== b[i]!.token) break;
  }
  return { steps, shared, worst };
}

describe('top-5 log-probabilities on WebGPU match the CPU builds on the same prompt', () => {
  // Sampled at temperature 1 from the top 5 with one seed: llama.cpp then lists the 5 candidates'
  // log-probabilities (at temperature 0 it lists only the chosen one). The prompt runs through the
  // batched matrix kernels, each later token through the one-row ones.
  const request = (model: string): GenerateRequest => ({
    model,
    input: { kind: 'prompt', prompt: 'The harbour master wrote in the log that the evening tide' },
    sampling: {
      maxTokens: 8,
      temperature: 1,
      topK: 5,
      topP: 1,
      minP: 0,
      seed: 11,
      ignoreEos: true,
    },
    logprobs: { top: 5 },
  });
  const references = {
    // wllama's stock build without WebGPU: the same llama.cpp (b12211), only the kernels differ.
    'wllama stock build, CPU': () => createWllamaEngine({ store, wasmUrl, gpuLayers: 0 }),
    // Not lmtab-cpu: with logprobs asked, wllama's stock build bans every token that is not whole
    // characters (it cannot serialize them as alternatives) while lmtab's build lists them with
    // their bytes, so the two sample from different candidates by design (src/engine/wllama/utf8-guard.ts).
  };
  // Tolerances in natural-log units. F16 weights: both sides compute in floats (seen: 3e-4).
  // Q4_K_M: the CPU quantizes activations to 8 bits for its dot products, WebGPU does not (seen:
  // up to 0.02).
  const tolerance = { f16: 0.005, q4km: 0.05 };

  for (const [model, limit] of Object.entries(tolerance)) {
    for (const [name, make] of Object.entries(references)) {
      test(`${model}: ${name} within ${limit}`, async () => {
        const cpu = make();
        try {
          const onGpu = stepsOf(await collect(engine, request(model)));
          // The backend as confirmed from llama.cpp's offload line at the load.
          expect(engine.loaded().find((m) => m.model === model)?.info.backend).toBe('webgpu');
          const onCpu = await logOf(() => collect(cpu, request(model)));
          expect(cpu.loaded()[0]?.info.backend).toBe('wasm');
          // The offload check tells this run, from its own log, for one on the CPU.
          expect(notOnGpu(readOffload(onCpu.lines))).toMatch(/opened no adapter/);
          const reference = stepsOf(onCpu.result);
          const compared = compareSteps(onGpu, reference);
          expect(compared.steps).toBeGreaterThanOrEqual(3);
          // At least 4 of each step's 5 candidates are listed by both (the 5th may tie a 6th).
          expect(compared.shared).toBeGreaterThanOrEqual(4 * compared.steps);
          expect(compared.worst).toBeLessThanOrEqual(limit);
        } finally {
          await cpu.unload();
        }
      });
    }
  }
});

describe('an adapter without shader-f16 (NVIDIA without vulkan_enable_f16_on_nvidia)', () => {
  test('is planned onto the CPU with the reason, and a load that lands there anyway is caught', async () => {
    await engine.unload();
    gpu.uninstall();
    gpu = await installNodeWebgpu({ hideFeatures: ['shader-f16'] });
    expect(gpu.adapter.features).not.toContain('shader-f16');
    const planned = await createWllamaEngine({ store, wasmUrl }).info();
    expect(planned.backend).toBe('wasm');
    expect(planned.fallbackReason).toMatch(/lacks shader-f16/);
    // An engine told the adapter is fine: llama.cpp registers no WebGPU device and runs the model
    // on the CPU without an error; its log and the engine's confirmed backend say so.
    const fooled = createWllamaEngine({
      store,
      wasmUrl,
      probe: async () => ({
        adapter: 'lavapipe with shader-f16 hidden',
        shaderF16: true,
        cores: 1,
        crossOriginIsolated: false,
      }),
    });
    try {
      const { result, lines } = await logOf(() => fooled.load('q4km'));
      expect(notOnGpu(readOffload(lines))).toBeDefined();
      expect(result.info.backend).toBe('wasm');
      expect(result.info.fallbackReason).toMatch(/registered no WebGPU device/);
    } finally {
      await fooled.unload();
    }
  });
});
