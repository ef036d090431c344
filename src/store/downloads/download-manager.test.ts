import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeHub } from '../../../tests/support/fake-hub.js';
import type { FakeHub } from '../../../tests/support/fake-hub.js';
import { ensureFixtures } from '../../../tests/support/lfm2-fixtures.js';
import { createHubClient } from '../../hub/index.js';
import { resolveHubModel } from './resolve-hub-model.js';
import { DownloadManager } from './download-manager.js';
import type { DownloadState } from './download-manager.js';
import type { DownloadRequest } from './download-model.js';
import { createMemoryDownloadStore } from '../testing/memory-download-store.js';

const file = 'LFM2-350M-Q4_K_M.gguf';
const id = 'hf.co/acme/LFM2-350M-GGUF:Q4_K_M';
let hub: FakeHub;
let dir: string;
let request: DownloadRequest;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lmtab-manager-'));
  const paths = await ensureFixtures(dir);
  hub = await startFakeHub({
    repos: [{ id: 'acme/LFM2-350M-GGUF', files: [{ path: file, file: paths.lfm2 }] }],
  });
  request = (await resolveHubModel(createHubClient({ endpoint: hub.url }), 'acme/LFM2-350M-GGUF'))
    .request;
});

afterAll(async () => {
  await hub.close();
  await rm(dir, { recursive: true, force: true });
});

afterEach(() => hub.reset());

function until(manager: DownloadManager, test: (state: DownloadState | undefined) => boolean) {
  return new Promise<DownloadState | undefined>((resolve) => {
    const check = () => {
      const state = manager.get(id);
      if (!test(state)) return;
      manager.removeEventListener('change', check);
      resolve(state);
    };
    manager.addEventListener('change', check);
    check();
  });
}

describe('DownloadManager', () => {
  it('downloads, pauses keeping the chunks, resumes where it stopped, and announces the model', async () => {
    const store = createMemoryDownloadStore();
    const manager = new DownloadManager({ store, chunkSize: 64 * 1024, progressIntervalMs: 0 });
    const downloaded = new Promise<CustomEvent>((resolve) =>
      manager.addEventListener('downloaded', (event) => resolve(event as CustomEvent), {
        once: true,
      }),
    );
    hub.slow(file, 300_000);
    manager.download(request);
    await until(manager, (state) => (state?.bytes ?? 0) > 150_000);
    await manager.pause(id);
    expect(manager.get(id)?.status).toBe('paused');
    const paused = await store.get(id);
    expect(paused?.paused).toBe(true);
    const stored = (paused?.files[0]?.chunks ?? 0) * 64 * 1024;
    expect(stored).toBeGreaterThan(0);

    hub.slow(file, undefined);
    await manager.resume(id);
    const done = await until(manager, (state) => state?.status === 'done');
    expect(done?.fetchedBytes).toBe(request.files[0]!.size - stored);
    expect(hub.ranges(file).at(-1)).toBe(`bytes=${stored}-`);
    expect((await downloaded).detail).toMatchObject({ id });
    expect((await downloaded).detail).not.toHaveProperty('paused');
    expect((await store.get(id))?.paused).toBeUndefined();
  });

  it('lists unfinished downloads on start and resumes them, unless paused', async () => {
    const store = createMemoryDownloadStore();
    const first = new DownloadManager({ store, chunkSize: 64 * 1024, progressIntervalMs: 0 });
    hub.slow(file, 300_000);
    first.download(request);
    await until(first, (state) => (state?.bytes ?? 0) > 150_000);
    // A reload: the page's downloads stop where they are, without a pause.
    await first.pause(id);
    await store.putRecord({ ...(await store.get(id))!, paused: undefined });
    hub.slow(file, undefined);

    const second = new DownloadManager({ store, progressIntervalMs: 0 });
    await second.start();
    expect(second.list().map((s) => s.id)).toEqual([id]);
    expect((await until(second, (s) => s?.status === 'done'))?.record?.files[0]?.complete).toBe(
      true,
    );

    const pausedStore = createMemoryDownloadStore();
    await pausedStore.putRecord({ ...(await store.get(id))!, paused: true });
    const files = (await pausedStore.get(id))!.files;
    files[0] = { ...files[0]!, complete: false, chunks: 1 };
    await pausedStore.putRecord({ ...(await pausedStore.get(id))!, files });
    const third = new DownloadManager({ store: pausedStore });
    await third.start();
    expect(third.get(id)?.status).toBe('paused');
  });

  it('cancels a download and deletes what it stored; failures keep their message', async () => {
    const store = createMemoryDownloadStore();
    const manager = new DownloadManager({ store, chunkSize: 64 * 1024, progressIntervalMs: 0 });
    hub.slow(file, 300_000);
    manager.download(request);
    await until(manager, (state) => (state?.bytes ?? 0) > 70_000);
    await manager.cancel(id);
    expect(manager.list()).toEqual([]);
    expect(store.records.size).toBe(0);
    expect(store.chunks.size).toBe(0);

    hub.slow(file, undefined);
    hub.wrongSha(file);
    manager.download(
      (await resolveHubModel(createHubClient({ endpoint: hub.url }), 'acme/LFM2-350M-GGUF'))
        .request,
    );
    const failed = await until(manager, (state) => state?.status === 'failed');
    expect(failed?.error).toMatchObject({ code: 'checksum_mismatch' });
    expect(store.records.size).toBe(0);
  });
});
