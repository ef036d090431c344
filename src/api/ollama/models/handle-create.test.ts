import { describe, expect, it } from 'vitest';
import { encodeGguf } from '../../../../tests/support/gguf-writer.js';
import { lfm2VlProjector } from '../../../../tests/support/lfm2-fixtures.js';
import { Sha256 } from '../../../store/index.js';
import { modelRecordFixture } from '../../testing/model-record-fixture.js';
import { readChunks, routerHarness } from '../../testing/router-harness.js';
import type { RouterHarness } from '../../testing/router-harness.js';

const gguf = new TextEncoder().encode('GGUF tiny model bytes');
const hex = new Sha256().update(gguf).digestHex();
const issueTemplate =
  '<|startoftext|><|im_start|>system\n{{ .System }}<|im_end|>\n<|im_start|>user\n' +
  '{{ .Prompt }}<|im_end|>\n<|im_start|>assistant\n';
const pirate = modelRecordFixture({
  id: 'pirate',
  customization: {
    from: 'lfm2-350m',
    template: '{{ .Prompt }}',
    system: 'You are a pirate.',
    parameters: { temperature: 0.7, stop: ['User:'] },
    messages: [{ role: 'user', content: 'Ahoy?' }],
  },
});

async function upload(
  harness: RouterHarness,
  bytes: Uint8Array<ArrayBuffer>,
  digest = hex,
): Promise<Response> {
  return harness.router.handle(
    new Request(`http://lmtab.test/api/blobs/sha256:${digest}`, {
      method: 'POST',
      body: new Blob([bytes]),
    }),
  );
}

async function exists(harness: RouterHarness, digest: string): Promise<number> {
  const request = new Request(`http://lmtab.test/api/blobs/sha256:${digest}`, { method: 'HEAD' });
  return (await harness.router.handle(request)).status;
}

describe('/api/blobs', () => {
  it('stores an uploaded file under its digest; HEAD finds it', async () => {
    const harness = routerHarness();
    expect(await exists(harness, hex)).toBe(404);
    expect((await upload(harness, gguf)).status).toBe(201);
    expect(await exists(harness, hex)).toBe(200);
    expect((await harness.store.get(`sha256-${hex}`))?.digest).toBe(hex);
    expect((await upload(harness, gguf)).status).toBe(200);
  });

  it('finds a stored model’s file by its digest', async () => {
    expect(await exists(routerHarness(), 'a'.repeat(64))).toBe(200);
  });

  it('refuses bytes that hash to another digest and keeps nothing', async () => {
    const harness = routerHarness();
    const response = await upload(harness, gguf, 'b'.repeat(64));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: `Digest mismatch: expected sha256:${'b'.repeat(64)}, but the 21 bytes received hash to sha256:${hex}; nothing was kept.`,
    });
    expect(await harness.store.get(`sha256-${'b'.repeat(64)}`)).toBeUndefined();
  });

  it('refuses a malformed digest, an empty body and a body over the limit', async () => {
    const harness = routerHarness({ maxBlobBytes: 8 });
    const bad = await harness.router.handle(
      new Request('http://lmtab.test/api/blobs/md5:abc', {
        method: 'POST',
        body: new Blob([gguf]),
      }),
    );
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: 'Invalid digest: expected "sha256:" followed by 64 hex digits, received "md5:abc".',
    });
    expect((await upload(harness, new Uint8Array(0))).status).toBe(400);
    const large = await upload(harness, gguf);
    expect(large.status).toBe(413);
  });
});

describe('POST /api/create', () => {
  it('creates the issue’s model from an uploaded file, streaming status lines', async () => {
    const harness = routerHarness();
    await upload(harness, gguf);
    const response = await harness.send('/api/create', {
      model: 'tiny-chat',
      files: { 'tiny.gguf': `sha256:${hex}` },
      template: issueTemplate,
      parameters: {
        temperature: 0.3,
        top_k: 50,
        repeat_penalty: 1.05,
        stop: ['<|im_end|>', '<|endoftext|>'],
      },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('application/x-ndjson');
    expect((await readChunks(response)).join('')).toBe(
      `{"status":"using model file sha256:${hex}"}\n` +
        '{"status":"writing model tiny-chat"}\n{"status":"success"}\n',
    );
    const record = await harness.store.get('tiny-chat');
    expect(record?.customization).toEqual({
      from: `sha256-${hex}`,
      template: issueTemplate,
      parameters: {
        temperature: 0.3,
        top_k: 50,
        repeat_penalty: 1.05,
        stop: ['<|im_end|>', '<|endoftext|>'],
      },
      messages: [],
    });
    expect(record?.digest).toBe(hex);
    // The uploaded file now belongs to the model; its waiting record is gone.
    expect(await harness.store.get(`sha256-${hex}`)).toBeUndefined();
    expect(await exists(harness, hex)).toBe(200);
  });

  it('renders the created model’s template for /api/chat, request options winning', async () => {
    const harness = routerHarness();
    await upload(harness, gguf);
    await harness.send('/api/create', {
      model: 'tiny-chat',
      files: { 'tiny.gguf': `sha256:${hex}` },
      template: issueTemplate,
      system: 'Be terse.',
      parameters: { temperature: 0.3, top_k: 50, stop: ['<|im_end|>'] },
      stream: false,
    });
    const response = await harness.send('/api/chat', {
      model: 'tiny-chat:latest',
      messages: [{ role: 'user', content: 'Hi' }],
      options: { temperature: 1 },
      stream: false,
    });
    expect(response.status).toBe(200);
    expect(harness.engine.requests[0]).toEqual({
      model: 'tiny-chat',
      input: {
        kind: 'prompt',
        prompt:
          '<|startoftext|><|im_start|>system\nBe terse.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n' +
          '<|im_start|>assistant\n',
      },
      sampling: { temperature: 1, topK: 50, stop: ['<|im_end|>'] },
    });
  });

  it('pairs an uploaded vision projector with the model file', async () => {
    const harness = routerHarness();
    const projector = encodeGguf(lfm2VlProjector()) as Uint8Array<ArrayBuffer>;
    const projectorHex = new Sha256().update(projector).digestHex();
    await upload(harness, gguf);
    expect(await exists(harness, projectorHex)).toBe(404);
    expect((await upload(harness, projector, projectorHex)).status).toBe(201);
    expect(await exists(harness, projectorHex)).toBe(200);
    const response = await harness.send('/api/create', {
      model: 'tiny-vl',
      files: { 'tiny.gguf': `sha256:${hex}`, 'mmproj-tiny.gguf': `sha256:${projectorHex}` },
    });
    expect((await readChunks(response)).join('')).toContain(
      `{"status":"using vision projector sha256:${projectorHex}"}`,
    );
    const record = await harness.store.get('tiny-vl');
    expect(record?.projector).toMatchObject({ name: 'mmproj-tiny.gguf', sha256: projectorHex });
    // Held no more, but found on the model now: a second upload is not needed.
    expect(await exists(harness, projectorHex)).toBe(200);
    expect((await upload(harness, projector, 'd'.repeat(64))).status).toBe(400);
  });

  it('makes a plain copy of an uploaded file when nothing is customized', async () => {
    const harness = routerHarness();
    await upload(harness, gguf);
    const response = await harness.send('/api/create', {
      model: 'tiny',
      from: `sha256:${hex}`,
      stream: false,
    });
    expect(await response.json()).toEqual({ status: 'success' });
    const record = await harness.store.get('tiny');
    expect(record?.customization).toBeUndefined();
    expect(record?.digest).toBe(hex);
  });

  it('inherits a custom base model’s settings, merging parameters by name', async () => {
    const harness = routerHarness({ records: [modelRecordFixture(), pirate] });
    const response = await harness.send('/api/create', {
      model: 'captain:latest',
      from: 'pirate',
      system: 'You are a captain.',
      parameters: { top_k: 20 },
      license: ['MIT', 'Apache-2.0'],
      stream: false,
    });
    expect(response.status).toBe(200);
    expect((await harness.store.get('captain'))?.customization).toEqual({
      from: 'pirate',
      template: '{{ .Prompt }}',
      system: 'You are a captain.',
      parameters: { temperature: 0.7, stop: ['User:'], top_k: 20 },
      messages: [{ role: 'user', content: 'Ahoy?' }],
      license: 'MIT\nApache-2.0',
    });
  });

  it('unloads a resident model it replaces', async () => {
    const harness = routerHarness();
    await harness.engine.load('lfm2-350m');
    await harness.send('/api/create', { model: 'lfm2-350m', from: 'lfm2-350m', stream: false });
    expect(harness.engine.unloads).toEqual(['lfm2-350m']);
  });

  it.each([
    [
      { from: 'lfm2-350m' },
      'Missing required field `model`: expected the name of the model to create.',
    ],
    [
      { model: 'x' },
      'Missing required field `from`: expected a model to build on (e.g. "hf.co/ORG/REPO:Q4_K_M"), or `files` naming an uploaded GGUF ({"model.gguf": "sha256:..."}).',
    ],
    [{ model: 'x', from: 'lfm2-350m', template: '{{ .Prompt }' }, /^`template` line 1:\d+: /],
    [
      { model: 'x', from: 'lfm2-350m', parameters: { top_k: 'many' } },
      'parameter top_k must be an integer, got "many"',
    ],
    [
      { model: 'x', from: 'lfm2-350m', parameters: { mirostat: 1 } },
      /^parameter mirostat is an Ollama setting lmtab does not use/,
    ],
    [
      { model: 'x', files: { 'a.gguf': `sha256:${'c'.repeat(64)}` } },
      `No model file with digest sha256:${'c'.repeat(64)} is stored: upload it first with POST /api/blobs/sha256:${'c'.repeat(64)}.`,
    ],
    [
      {
        model: 'x',
        files: { 'a.gguf': `sha256:${'a'.repeat(64)}`, 'b.gguf': `sha256:${'a'.repeat(64)}` },
      },
      'Invalid `files`: expected one GGUF model file and at most one vision projector, received 2: a.gguf, b.gguf.',
    ],
    [
      { model: 'x', files: { 'a.gguf': 'sha256:1' } },
      'Invalid files.a.gguf: expected "sha256:" followed by 64 hex digits, received "sha256:1".',
    ],
    [
      { model: 'x', from: 'lfm2-350m', quantize: 'q4_K_M' },
      /^Invalid `quantize`: lmtab cannot quantize/,
    ],
    [{ model: 'two words', from: 'lfm2-350m' }, /^Invalid `model`: .* \(it contains spaces/],
    [
      { model: 'x', from: 'lfm2-350m', messages: [{ role: 'tool', content: '' }] },
      /^Invalid `messages\[0\]\.role`/,
    ],
  ])('answers 400 for %j', async (body, message) => {
    const response = await routerHarness().send('/api/create', body);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toMatch(message);
  });

  it('answers 404 naming the stored models for an unknown base', async () => {
    const response = await routerHarness().send('/api/create', { model: 'x', from: 'nope' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: 'Model "nope" not found: expected one of the stored models (lfm2-350m).',
    });
  });
});

describe('POST /api/copy', () => {
  it('copies a model under a new name', async () => {
    const harness = routerHarness({ records: [modelRecordFixture(), pirate] });
    const response = await harness.send('/api/copy', { source: 'pirate', destination: 'corsair' });
    expect(response.status).toBe(200);
    expect((await harness.store.get('corsair'))?.customization).toEqual(pirate.customization);
  });

  it('answers 404 for an unknown source and 400 for a missing destination', async () => {
    const harness = routerHarness();
    expect((await harness.send('/api/copy', { source: 'nope', destination: 'x' })).status).toBe(
      404,
    );
    const missing = await harness.send('/api/copy', { source: 'lfm2-350m' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      error: 'Missing required field `destination`: expected a string.',
    });
  });
});

describe('a create that fails after its upload', () => {
  it('lists the upload nowhere while it waits, and deletes it when the create fails', async () => {
    const harness = routerHarness();
    expect((await upload(harness, gguf)).status).toBe(201);
    const listed = async () => ({
      tags: (
        (await (await harness.get('/api/tags')).json()) as { models: { name: string }[] }
      ).models.map((m) => m.name),
      openai: (
        (await (await harness.get('/v1/models')).json()) as { data: { id: string }[] }
      ).data.map((m) => m.id),
    });
    expect(await listed()).toEqual({ tags: ['lfm2-350m'], openai: ['lfm2-350m'] });
    // The Modelfile asks for something lmtab refuses: the create fails after the upload.
    const failed = await harness.send('/api/create', {
      model: 'broken',
      files: { 'model.gguf': `sha256:${hex}` },
      quantize: 'q4_K_M',
    });
    expect(failed.status).toBe(400);
    expect(await harness.store.get(`sha256-${hex}`)).toBeUndefined();
    expect(await exists(harness, hex)).toBe(404);
    expect(await listed()).toEqual({ tags: ['lfm2-350m'], openai: ['lfm2-350m'] });
  });
});
