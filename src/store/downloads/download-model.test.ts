import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeHub } from '../../../tests/support/fake-hub.js';
import type { FakeHub } from '../../../tests/support/fake-hub.js';
import { encodeGguf } from '../../../tests/support/gguf-writer.js';
import {
  ensureFixtures,
  fixtureModel,
  fixtureSummaries,
} from '../../../tests/support/lfm2-fixtures.js';
import { splitGgufModel } from '../../../tests/support/split-gguf.js';
import { LmtabError } from '../../errors/index.js';
import { createHubClient } from '../../hub/index.js';
import { resolveHubModel } from './resolve-hub-model.js';
import { downloadModel } from './download-model.js';
import type { DownloadEvent, DownloadOptions, DownloadRequest } from './download-model.js';
import type { ModelRecord } from '../model-record.js';
import { resumeRequest } from './resume-request.js';
import { createMemoryDownloadStore } from '../testing/memory-download-store.js';

const chunk = 64 * 1024;
const model = 'acme/LFM2-350M-GGUF/LFM2-350M-Q4_K_M.gguf';
const projector = 'acme/LFM2-VL-450M-GGUF/mmproj-LFM2-VL-450M-F16.gguf';
const splitParts = splitGgufModel(fixtureModel('lfm2'), 2).map((part) => encodeGguf(part));
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

let hub: FakeHub;
let dir: string;
let modelBytes: Uint8Array;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lmtab-download-'));
  const paths = await ensureFixtures(dir);
  modelBytes = await readFile(paths.lfm2);
  hub = await startFakeHub({
    repos: [
      {
        id: 'acme/LFM2-350M-GGUF',
        files: [
          { path: 'LFM2-350M-Q4_K_M.gguf', file: paths.lfm2 },
          { path: 'LFM2-350M-Q8_0.gguf', file: paths.lfm2moe },
        ],
      },
      {
        id: 'acme/LFM2-VL-450M-GGUF',
        files: [
          { path: 'LFM2-VL-450M-Q4_K_M.gguf', file: paths.lfm2Vl },
          { path: 'mmproj-LFM2-VL-450M-F16.gguf', file: paths.mmproj },
        ],
      },
      {
        id: 'acme/LFM2-Split-GGUF',
        files: splitParts.map((bytes, i) => ({
          path: `Q8_0/LFM2-Split-Q8_0-0000${i + 1}-of-00002.gguf`,
          bytes,
        })),
      },
      {
        id: 'acme/Gated-GGUF',
        gated: true,
        files: [{ path: 'Gated-Q4_K_M.gguf', file: paths.lfm2 }],
      },
    ],
  });
});

afterAll(async () => {
  await hub.close();
  await rm(dir, { recursive: true, force: true });
});

afterEach(() => hub.reset());

async function requestFor(reference: string, token?: string): Promise<DownloadRequest> {
  return (await resolveHubModel(createHubClient({ endpoint: hub.url, token }), reference)).request;
}

async function run(
  request: DownloadRequest,
  options: Partial<DownloadOptions> & Pick<DownloadOptions, 'store'>,
): Promise<{ events: DownloadEvent[]; record?: ModelRecord; error?: unknown }> {
  const events: DownloadEvent[] = [];
  try {
    for await (const event of downloadModel(request, {
      chunkSize: chunk,
      retryDelayMs: 10,
      ...options,
    })) {
      events.push(event);
    }
  } catch (error) {
    return { events, error };
  }
  const done = events.at(-1);
  return { events, record: done?.type === 'done' ? done.record : undefined };
}

describe('downloadModel', () => {
  it('stores a vision model and its projector as one verified record with the GGUF facts', async () => {
    const store = createMemoryDownloadStore();
    const request = await requestFor('hf.co/acme/LFM2-VL-450M-GGUF');
    expect(request.id).toBe('hf.co/acme/LFM2-VL-450M-GGUF:Q4_K_M');
    const { events, record } = await run(request, { store });
    expect(events[0]).toMatchObject({ type: 'start', bytes: 0 });
    expect(events.filter((e) => e.type === 'verified')).toEqual([
      expect.objectContaining({ file: 'LFM2-VL-450M-Q4_K_M.gguf', checked: true }),
      expect.objectContaining({ file: 'mmproj-LFM2-VL-450M-F16.gguf', checked: true }),
    ]);
    expect(record?.gguf).toEqual(fixtureSummaries.lfm2Vl);
    expect(record?.source).toMatchObject({ kind: 'hub', repo: 'acme/LFM2-VL-450M-GGUF' });
    expect(record?.projector).toMatchObject({ complete: true, sha256: hub.sha256(projector) });
    expect(record?.files[0]?.hashState).toBeUndefined();
    expect(record?.digest).toBe(hub.sha256('LFM2-VL-450M-Q4_K_M.gguf'));
    expect(await store.get(request.id)).toEqual(record);
    // Pinned to the listed commit, so a resume days later cannot mix two versions of a file.
    expect(record?.files[0]?.url).toMatch(/\/resolve\/[0-9a-f]{40}\//);
  });

  it('resumes a cut connection at the last stored chunk and fetches nothing twice but the cut chunk', async () => {
    const store = createMemoryDownloadStore();
    hub.cutAfter(model, 200_000);
    const { events, record } = await run(await requestFor('acme/LFM2-350M-GGUF'), { store });
    const resumeAt = Math.floor(200_000 / chunk) * chunk;
    expect(hub.ranges(model)).toEqual(['bytes=0-', `bytes=${resumeAt}-`]);
    expect(events.find((e) => e.type === 'retry')).toMatchObject({
      attempt: 1,
      resumeFrom: resumeAt,
      reason: expect.stringMatching(/connection/),
    });
    const done = events.at(-1);
    expect(done).toMatchObject({
      type: 'done',
      fetchedBytes: 200_000 + modelBytes.length - resumeAt,
    });
    expect(record?.files[0]).toMatchObject({ complete: true, sha256: sha256(modelBytes) });
    const stored = await store.readFile(record!.files[0]!);
    expect(Buffer.from(await stored.arrayBuffer()).equals(modelBytes)).toBe(true);
  });

  it('continues a stopped download in a later call, from its record, without re-fetching stored chunks', async () => {
    const store = createMemoryDownloadStore();
    hub.slow(model, 400_000);
    const controller = new AbortController();
    const first = downloadModel(await requestFor('acme/LFM2-350M-GGUF'), {
      store,
      chunkSize: chunk,
      signal: controller.signal,
    });
    const error = await (async () => {
      for await (const event of first) {
        if (event.type === 'progress' && event.fileBytes > 2 * chunk) controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LmtabError);
    expect(error).toMatchObject({ code: 'aborted' });
    const partial = await store.get('hf.co/acme/LFM2-350M-GGUF:Q4_K_M');
    const chunks = partial?.files[0]?.chunks ?? 0;
    expect(chunks).toBeGreaterThanOrEqual(2);
    expect(partial?.files[0]?.hashState?.length).toBe(chunks * chunk);

    hub.slow(model, undefined);
    const writesBefore = store.writes.length;
    const { events, record } = await run(resumeRequest(partial!), { store });
    expect(events[0]).toMatchObject({ type: 'start', bytes: chunks * chunk });
    expect(hub.ranges(model).at(-1)).toBe(`bytes=${chunks * chunk}-`);
    expect(store.writes.slice(writesBefore)[0]).toBe(`LFM2-350M-Q4_K_M.gguf:${chunks}`);
    expect(record?.files[0]?.sha256).toBe(sha256(modelBytes));
  });

  it('rejects a file whose sha256 differs from the listing and leaves nothing behind', async () => {
    const store = createMemoryDownloadStore();
    hub.wrongSha(model);
    const request = await requestFor('acme/LFM2-350M-GGUF');
    const { error } = await run(request, { store });
    expect(error).toBeInstanceOf(LmtabError);
    expect(error).toMatchObject({ code: 'checksum_mismatch' });
    const message = (error as Error).message;
    expect(message).toContain('LFM2-350M-Q4_K_M.gguf');
    expect(message).toContain(`expected sha256 ${request.files[0]?.sha256}`);
    expect(message).toContain(`got ${sha256(modelBytes)}`);
    expect(store.records.size).toBe(0);
    expect(store.chunks.size).toBe(0);
  });

  it('retries busy answers, and gives a missing file or a refused token a clear error', async () => {
    const store = createMemoryDownloadStore();
    const request = await requestFor('acme/LFM2-350M-GGUF');
    hub.fail(model, 503, { times: 2 });
    const retried = await run(request, { store });
    expect(retried.events.filter((e) => e.type === 'retry')).toHaveLength(2);
    expect(retried.record?.files[0]?.complete).toBe(true);

    hub.fail('LFM2-350M-Q8_0.gguf', 404);
    const missing = await run(await requestFor('acme/LFM2-350M-GGUF:Q8_0'), { store });
    expect(missing.error).toMatchObject({ code: 'model_not_found', status: 404 });
    expect((missing.error as Error).message).toMatch(/LFM2-350M-Q8_0\.gguf was not found on http/);
    expect(await store.get('hf.co/acme/LFM2-350M-GGUF:Q8_0')).toBeUndefined();

    const gated = await run(await requestFor('acme/Gated-GGUF'), { store });
    expect(gated.error).toMatchObject({ code: 'unauthorized', status: 401 });
    expect((gated.error as Error).message).toMatch(/set a hub token/);
    const withToken = await run(await requestFor('acme/Gated-GGUF', hub.token), {
      store,
      headers: () => ({ Authorization: `Bearer ${hub.token}` }),
    });
    expect(withToken.record?.files[0]?.complete).toBe(true);
  });

  it('gives up after the retries; a download that stored nothing leaves nothing', async () => {
    const store = createMemoryDownloadStore();
    hub.fail(model, 500);
    const { error, events } = await run(await requestFor('acme/LFM2-350M-GGUF'), {
      store,
      retries: 2,
    });
    expect(events.filter((e) => e.type === 'retry')).toHaveLength(2);
    expect(error).toMatchObject({ code: 'download_failed' });
    expect((error as Error).message).toMatch(/failed 3 times in a row.*HTTP 500/);
    expect(store.records.size).toBe(0);
  });

  it('downloads split parts as one model and counts the parameters of every part', async () => {
    const store = createMemoryDownloadStore();
    const request = await requestFor('hf.co/acme/LFM2-Split-GGUF:Q8_0');
    expect(request.files.map((f) => f.name)).toEqual([
      'Q8_0/LFM2-Split-Q8_0-00001-of-00002.gguf',
      'Q8_0/LFM2-Split-Q8_0-00002-of-00002.gguf',
    ]);
    const { record } = await run(request, { store });
    expect(record?.files.map((f) => [f.complete, f.sha256])).toEqual(
      splitParts.map((bytes) => [true, sha256(bytes)]),
    );
    expect(record?.gguf.parameterCount).toBe(fixtureSummaries.lfm2.parameterCount);
    expect(record?.gguf.architecture).toBe('lfm2');
    expect(record?.sizeBytes).toBe(splitParts[0]!.length + splitParts[1]!.length);
  });

  it('checks free space before fetching anything', async () => {
    const store = createMemoryDownloadStore();
    const { error } = await run(await requestFor('acme/LFM2-350M-GGUF'), {
      store,
      ensureSpace: (bytes) =>
        Promise.reject(new LmtabError('quota_exceeded', `Not enough storage for ${bytes} bytes`)),
    });
    expect(error).toMatchObject({ code: 'quota_exceeded' });
    expect(hub.ranges(model)).toEqual([]);
  });

  it('answers an already complete model without fetching', async () => {
    const store = createMemoryDownloadStore();
    const request = await requestFor('acme/LFM2-350M-GGUF');
    await run(request, { store });
    hub.reset();
    const again = await run(request, { store });
    expect(again.events).toEqual([expect.objectContaining({ type: 'done', alreadyStored: true })]);
    expect(hub.ranges(model)).toEqual([]);
  });
});
