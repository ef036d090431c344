import { describe, expect, it } from 'vitest';
import { encodeGguf } from '../../../../tests/support/gguf-writer.js';
import type { GgufModel } from '../../../../tests/support/gguf-writer.js';
import { createIdbModelStore, Sha256 } from '../../../store/index.js';
import type { ModelRecord } from '../../../store/index.js';
import * as memoryKeyval from '../../../store/testing/memory-idb-keyval.js';
import {
  restoreDatabases,
  saveDatabases,
  storedKeys,
} from '../../../store/testing/memory-idb-keyval.js';
import { createRouter } from '../../routing/create-router.js';
import { unusedUploadKeepMs } from '../../body/default-limits.js';
import { createFakeEngine } from '../../testing/fake-engine.js';
import { harnessNow } from '../../testing/router-harness.js';
import { pruneUploads } from '../blobs/prune-uploads.js';

/** A GGUF of a few bytes: the store reads its header, the fake engine never loads it. */
function tinyGguf(metadata: GgufModel['metadata']): Uint8Array<ArrayBuffer> {
  const tensor = {
    name: 'w',
    dims: [8],
    type: 'F32',
    data: { kind: 'constant', value: 1 },
  } as const;
  return new Uint8Array(encodeGguf({ metadata, tensors: [tensor] }));
}

const text = (value: string) => ({ type: 'string', value }) as const;
const weights = tinyGguf({ 'general.architecture': text('lfm2'), 'general.name': text('tiny') });
const hex = digest(weights);
const projector = (name: string) =>
  tinyGguf({
    'general.architecture': text('clip'),
    'general.type': text('mmproj'),
    'general.name': text(name),
    'clip.has_vision_encoder': { type: 'bool', value: true },
  });
const projectors = { P: projector('P'), Q: projector('Q') };
const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const pngBase64 = btoa(String.fromCharCode(...png));

function digest(data: Uint8Array): string {
  return new Sha256().update(data).digestHex();
}

/** What one model's Modelfile (or its import) says besides the weights, which both models share. */
interface ModelSpec {
  projector?: keyof typeof projectors;
  template?: string;
  system?: string;
  parameters?: Record<string, unknown>;
}

/** How a model was made: `lmtab create` (blob uploads, then `/api/create`) or My Models' import. */
type Way = 'cli' | 'ui';

interface Made {
  spec: ModelSpec;
  way: Way;
}

let worlds = 0;

/** A router over the real IndexedDB store (idb-keyval over Maps), with a clock the test moves. */
function world() {
  const name = `shared-${++worlds}`;
  let now = harnessNow;
  const clock = () => now;
  const store = createIdbModelStore({ name, chunkSize: 64 * 1024, clock, keyval: memoryKeyval });
  const engine = createFakeEngine();
  const router = createRouter({ version: 'test', engine, store, clock });
  const send = (path: string, body?: unknown, method = 'POST') =>
    router.handle(
      new Request(`http://lmtab.test${path}`, {
        method,
        headers: { 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  const blobPath = (blobHex: string) => `/api/blobs/sha256:${blobHex}`;
  const hasBlob = async (blobHex: string) =>
    (await router.handle(new Request(`http://lmtab.test${blobPath(blobHex)}`, { method: 'HEAD' })))
      .status === 200;
  const upload = async (data: Uint8Array<ArrayBuffer>) =>
    router.handle(
      new Request(`http://lmtab.test${blobPath(digest(data))}`, {
        method: 'POST',
        body: new Blob([data]),
      }),
    );

  return {
    store,
    chunkKeys: () => storedKeys(`${name}-chunks`, 'chunks').map(String),
    send,
    hasBlob,
    upload,
    wait: (ms: number) => void (now += ms),
    /** The stored state and the clock, to go back to with `restore`. */
    save: () => ({ databases: saveDatabases(`${name}-`), now }),
    restore(saved: { databases: ReturnType<typeof saveDatabases>; now: number }) {
      restoreDatabases(saved.databases);
      now = saved.now;
    },
    get: (path: string) => router.handle(new Request(`http://lmtab.test${path}`)),

    /** `lmtab create NAME -f Modelfile` with `FROM ./NAME.gguf`, beside the spec's projector. */
    async cli(model: string, spec: ModelSpec): Promise<Response> {
      const files: Record<string, string> = { [`${model}.gguf`]: `sha256:${hex}` };
      if (!(await hasBlob(hex))) expect((await upload(weights)).status).toBe(201);
      if (spec.projector !== undefined) {
        const data = projectors[spec.projector];
        if (!(await hasBlob(digest(data)))) expect((await upload(data)).status).toBe(201);
        files[`mmproj-${model}.gguf`] = `sha256:${digest(data)}`;
      }
      const { projector: _, ...settings } = spec;
      return send('/api/create', { model, files, ...settings, stream: false });
    },

    /** My Models: the model file (and the spec's projector) imported under `model`. */
    async ui(model: string, spec: ModelSpec): Promise<void> {
      const projector =
        spec.projector === undefined
          ? undefined
          : new File([projectors[spec.projector]], `mmproj-${model}.gguf`);
      const steps = store.importFiles(new File([weights], `${model}.gguf`), { projector });
      for await (const step of steps) void step;
    },
  };
}

type World = ReturnType<typeof world>;

/** What the store, `/api/show`, `/v1/models`, `/api/tags` and a chat with an image say of `made`. */
async function expectModels(
  w: World,
  made: Map<string, Made>,
  label: string,
  waiting: (keyof typeof projectors)[] = [],
): Promise<void> {
  const names = [...made.keys()].sort();
  const openai = (await (await w.get('/v1/models')).json()) as { data: { id: string }[] };
  expect(openai.data.map((m) => m.id).sort(), label).toEqual(names);
  const tags = (await (await w.get('/api/tags')).json()) as { models: { name: string }[] };
  expect(tags.models.map((m) => m.name).sort(), label).toEqual(names);

  const used = new Set<string>();
  for (const name of ['tiny', 'tinyvl']) {
    const expected = made.get(name);
    const show = await w.send('/api/show', { model: name });
    const chat = await w.send('/api/chat', {
      model: name,
      messages: [{ role: 'user', content: 'What is it?', images: [pngBase64] }],
      stream: false,
    });
    if (expected === undefined) {
      expect([show.status, chat.status], `${label}: ${name} is gone`).toEqual([404, 404]);
      continue;
    }
    const { spec, way } = expected;
    const where = `${label}: ${name} (${way} ${JSON.stringify(spec)})`;
    const projector = spec.projector === undefined ? undefined : projectors[spec.projector];
    const body = (await show.json()) as Record<string, unknown>;
    expect(show.status, where).toBe(200);
    expect((body.capabilities as string[]).includes('vision'), where).toBe(projector !== undefined);
    expect(chat.status, where).toBe(projector === undefined ? 400 : 200);
    const settings = way === 'cli' ? spec : {};
    expect([body.template, body.system], where).toEqual([settings.template, settings.system]);
    expect(body.parameters !== undefined, where).toBe(settings.parameters !== undefined);

    const record = (await w.store.get(name)) as ModelRecord;
    const customized =
      way === 'cli' && (spec.template ?? spec.system ?? spec.parameters) !== undefined;
    expect(record.customization, where).toEqual(
      customized
        ? {
            from: `sha256-${hex}`,
            ...(spec.template === undefined ? {} : { template: spec.template }),
            ...(spec.system === undefined ? {} : { system: spec.system }),
            parameters: spec.parameters ?? {},
            messages: [],
          }
        : undefined,
    );
    expect(record.source, where).toEqual({ kind: 'import', fileName: `${name}.gguf` });
    expect(record.sizeBytes, where).toBe(weights.length + (projector?.length ?? 0));
    expect(record.lastUsedAt, where).toBeUndefined();
    const blobs = await w.store.open(name);
    expect(blobs.model.length, where).toBe(1);
    expect(digest(new Uint8Array(await (blobs.model[0] as Blob).arrayBuffer())), where).toBe(hex);
    const stored = blobs.projector && new Uint8Array(await blobs.projector.arrayBuffer());
    expect(stored && digest(stored), where).toBe(projector && digest(projector));
    for (const file of [...record.files, ...(record.projector ? [record.projector] : [])]) {
      used.add(file.fileId);
    }
  }
  // Nothing is kept that no model uses: no waiting uploads, no chunks of removed files.
  expect(
    (await w.store.list()).map((r) => r.id).sort(),
    `${label}: only the models are stored`,
  ).toEqual(names);
  const orphans = w.chunkKeys().filter((key) => !used.has(key.slice(0, key.lastIndexOf(':'))));
  expect(orphans, `${label}: chunks no model uses`).toEqual([]);
  if (waiting.length === 0) return;
  for (const [key, data] of Object.entries(projectors)) {
    const held =
      waiting.includes(key as keyof typeof projectors) ||
      [...made.values()].some(({ spec }) => spec.projector === key);
    expect(await w.hasBlob(digest(data)), `${label}: projector ${key} found`).toBe(held);
  }
}

/** One step of a sequence: make a model (either way) or delete one. */
type Step = { make: Way; name: string } | { remove: string };

/** The steps of `lmtab create` and `lmtab rm` (through the relay, the same router). */
const cliSteps: Step[] = [
  { make: 'cli', name: 'tiny' },
  { make: 'cli', name: 'tinyvl' },
  { remove: 'tiny' },
  { remove: 'tinyvl' },
];

/** Those, and My Models' import of either model. */
const allSteps: Step[] = [
  ...cliSteps,
  { make: 'ui', name: 'tiny' },
  { make: 'ui', name: 'tinyvl' },
];

function describeStep(step: Step): string {
  return 'remove' in step ? `rm ${step.remove}` : `${step.make} ${step.name}`;
}

/** Two models of one file, `tiny` and `tinyvl`, each with its own Modelfile. */
const pairs: [string, Record<string, ModelSpec>][] = [
  [
    'the issue: FROM the file alone, one beside a projector',
    { tiny: {}, tinyvl: { projector: 'P' } },
  ],
  [
    'a text model and one with a projector, each with settings of its own',
    {
      tiny: { system: 'You are tiny.', parameters: { temperature: 0.1 } },
      tinyvl: { projector: 'P', template: '{{ .Prompt }}', parameters: { top_k: 7 } },
    },
  ],
  [
    'two models with projectors of their own',
    {
      tiny: { projector: 'Q', system: 'You are tiny.' },
      tinyvl: { projector: 'P', template: '{{ .Prompt }}' },
    },
  ],
  [
    'two models sharing a projector too',
    { tiny: { projector: 'P', system: 'You are tiny.' }, tinyvl: { projector: 'P' } },
  ],
];

/**
 * Runs every sequence of `depth` more steps from the state `w` is in, checking every model after
 * each step; sequences sharing a start share its work (the state is saved and put back).
 */
async function explore(
  w: World,
  specs: Record<string, ModelSpec>,
  steps: readonly Step[],
  depth: number,
  made: ReadonlyMap<string, Made>,
  done: readonly string[],
): Promise<number> {
  if (depth === 0) return 0;
  const saved = w.save();
  let runs = 0;
  for (const step of steps) {
    w.restore(saved);
    w.wait(1000);
    const now = new Map(made);
    const label = [...done, describeStep(step)].join(', ');
    if ('remove' in step) {
      const response = await w.send('/api/delete', { model: step.remove }, 'DELETE');
      expect(response.status, label).toBe(now.has(step.remove) ? 200 : 404);
      now.delete(step.remove);
    } else {
      const spec = specs[step.name] as ModelSpec;
      if (step.make === 'cli') {
        const response = await w.cli(step.name, spec);
        expect(response.status, `${label}: ${await response.clone().text()}`).toBe(200);
      } else {
        await w.ui(step.name, spec);
      }
      now.set(step.name, { spec, way: step.make });
    }
    await expectModels(w, now, label);
    runs += 1 + (await explore(w, specs, steps, depth - 1, now, [...done, describeStep(step)]));
  }
  return runs;
}

describe.each(pairs)('two models of one weights file: %s', (_, specs) => {
  it('every four creates, re-creates and deletes keep each model its own', async () => {
    // 4 + 4^2 + 4^3 + 4^4 steps: every sequence of four, checked after each step.
    expect(await explore(world(), specs, cliSteps, 4, new Map(), [])).toBe(340);
  }, 60_000);

  it('so do every three steps with imports in My Models among them', async () => {
    expect(await explore(world(), specs, allSteps, 3, new Map(), [])).toBe(258);
  }, 60_000);
});

describe('uploads no create used', () => {
  it('are attached to no later create, and are removed an hour after their upload', async () => {
    const w = world();
    const projectorHex = digest(projectors.P);
    expect((await w.upload(projectors.P)).status).toBe(201);
    expect((await w.cli('tiny', {})).status).toBe(200);
    await expectModels(w, new Map([['tiny', { spec: {}, way: 'cli' }]]), 'the create', ['P']);
    // The projector waits for a create that names it, for an hour.
    w.wait(unusedUploadKeepMs - 1);
    expect(await w.hasBlob(projectorHex)).toBe(true);
    w.wait(1);
    expect(await w.hasBlob(projectorHex)).toBe(false);

    // A model file uploaded and never created from is listed nowhere, then removed with its chunks.
    const other = tinyGguf({ 'general.architecture': text('lfm2'), 'general.name': text('other') });
    expect((await w.upload(other)).status).toBe(201);
    expect(await w.store.get(`sha256-${digest(other)}`)).toBeDefined();
    expect(await w.hasBlob(digest(other))).toBe(true);
    const listed = (await (await w.get('/v1/models')).json()) as { data: { id: string }[] };
    expect(listed.data.map((m) => m.id)).toEqual(['tiny']);
    w.wait(unusedUploadKeepMs);
    const late = await w.send('/api/create', {
      model: 'late',
      files: { 'other.gguf': `sha256:${digest(other)}` },
    });
    expect(late.status).toBe(400);
    expect(await late.json()).toEqual({
      error: `No model file with digest sha256:${digest(other)} is stored: upload it first with POST /api/blobs/sha256:${digest(other)}.`,
    });
    await expectModels(w, new Map([['tiny', { spec: {}, way: 'cli' }]]), 'an hour later');
  });

  it('a failed create drops the projector it named', async () => {
    const w = world();
    expect((await w.upload(weights)).status).toBe(201);
    expect((await w.upload(projectors.P)).status).toBe(201);
    const failed = await w.send('/api/create', {
      model: 'tinyvl',
      files: { 'tinyvl.gguf': `sha256:${hex}`, 'mmproj.gguf': `sha256:${digest(projectors.P)}` },
      quantize: 'q4_K_M',
    });
    expect(failed.status).toBe(400);
    await expectModels(w, new Map(), 'after the failed create');
  });

  it('are pruned when an engine host starts, by the store’s clock', async () => {
    const w = world();
    expect((await w.upload(weights)).status).toBe(201);
    expect(await pruneUploads(w.store, { clock: () => harnessNow + unusedUploadKeepMs - 1 })).toBe(
      0,
    );
    expect(await pruneUploads(w.store, { clock: () => harnessNow + unusedUploadKeepMs })).toBe(1);
    expect(w.chunkKeys()).toEqual([]);
  });
});
