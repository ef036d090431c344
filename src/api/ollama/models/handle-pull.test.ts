import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeHub } from '../../../../tests/support/fake-hub.js';
import type { FakeHub } from '../../../../tests/support/fake-hub.js';
import { ensureFixtures } from '../../../../tests/support/lfm2-fixtures.js';
import { createHubClient } from '../../../hub/index.js';
import { downloadModel } from '../../../store/index.js';
import { createMemoryDownloadStore } from '../../../store/testing/memory-download-store.js';
import type { MemoryDownloadStore } from '../../../store/testing/memory-download-store.js';
import type { HubAccess } from '../../pipeline/route-context.js';
import { ndjsonValues, routerHarness } from '../../testing/router-harness.js';

let hub: FakeHub;
let dir: string;
let store: MemoryDownloadStore;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lmtab-pull-'));
  const paths = await ensureFixtures(dir);
  hub = await startFakeHub({
    repos: [
      {
        id: 'LiquidAI/LFM2-VL-450M-GGUF',
        files: [
          { path: 'LFM2-VL-450M-Q4_K_M.gguf', file: paths.lfm2Vl },
          { path: 'LFM2-VL-450M-Q8_0.gguf', file: paths.lfm2Vl },
          { path: 'mmproj-LFM2-VL-450M-F16.gguf', file: paths.mmproj },
        ],
      },
    ],
  });
});

afterAll(async () => {
  await hub.close();
  await rm(dir, { recursive: true, force: true });
});

afterEach(() => hub.reset());

function access(): HubAccess {
  store = createMemoryDownloadStore();
  return {
    client: () => createHubClient({ endpoint: hub.url }),
    download: (request, { signal }) =>
      downloadModel(request, { store, signal, chunkSize: 64 * 1024, retryDelayMs: 10 }),
  };
}

const lines = async (response: Response) => ndjsonValues([await response.text()]);

describe('POST /api/pull', () => {
  it("streams Ollama's progress lines and stores the model with its projector", async () => {
    const { send } = routerHarness({ hub: access() });
    const response = await send('/api/pull', { model: 'hf.co/LiquidAI/LFM2-VL-450M-GGUF' });
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toBe('application/x-ndjson');
    const body = await lines(response);
    const model = hub.sha256('LFM2-VL-450M-Q4_K_M.gguf');
    const projector = hub.sha256('mmproj-LFM2-VL-450M-F16.gguf');
    expect(body[0]).toEqual({ status: 'pulling manifest' });
    // Before any file's bytes: how the model and projector fit, from the listing's sizes.
    expect(body[1]?.status).toMatch(/^CPU: fits, needs about [\d.]+ MB of the engine's 4 GiB$/);
    expect(body[2]?.status).toMatch(/^GPU: needs about [\d.]+ (MB|KB) of GPU memory$/);
    expect(body[3]?.digest).toBeDefined();
    expect(body.slice(-3)).toEqual([
      { status: 'verifying sha256 digest' },
      { status: 'writing manifest' },
      { status: 'success' },
    ]);
    const progress = body.filter((line) => line.digest !== undefined);
    expect(progress).toContainEqual({
      status: `pulling ${model.slice(0, 12)}`,
      digest: `sha256:${model}`,
      total: 396_320,
      completed: 396_320,
    });
    expect(progress.some((line) => line.digest === `sha256:${projector}`)).toBe(true);
    expect(progress.every((l) => (l.completed as number) <= (l.total as number))).toBe(true);
    const record = store.records.get('hf.co/LiquidAI/LFM2-VL-450M-GGUF:Q4_K_M');
    expect(record?.projector?.complete).toBe(true);
    expect(record?.gguf.architecture).toBe('lfm2');
  });

  it('answers once with stream false, and picks the named level', async () => {
    const { send } = routerHarness({ hub: access() });
    const response = await send('/api/pull', {
      model: 'LiquidAI/LFM2-VL-450M-GGUF:q8_0',
      stream: false,
    });
    expect(await response.json()).toEqual({ status: 'success' });
    expect([...store.records.keys()]).toEqual(['hf.co/LiquidAI/LFM2-VL-450M-GGUF:Q8_0']);
  });

  it('answers errors as {"error"} with the right status', async () => {
    const { send } = routerHarness({ hub: access() });
    const missing = await send('/api/pull', { model: 'hf.co/LiquidAI/Nope-GGUF' });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toMatch(/Repository LiquidAI\/Nope-GGUF was not found/);

    const level = await send('/api/pull', { model: 'LiquidAI/LFM2-VL-450M-GGUF:Q2_K' });
    expect(level.status).toBe(404);
    expect((await level.json()).error).toMatch(/has no Q2_K file: expected one of Q4_K_M, Q8_0/);

    const empty = await send('/api/pull', {});
    expect(empty.status).toBe(400);
    expect((await empty.json()).error).toMatch(/Missing required field `model`/);

    const wrong = await send('/api/pull', { model: 'llama3.2' });
    expect(wrong.status).toBe(400);

    hub.wrongSha('LFM2-VL-450M-Q4_K_M.gguf');
    const unverified = await send('/api/pull', {
      model: 'LiquidAI/LFM2-VL-450M-GGUF',
      stream: false,
    });
    expect(unverified.status).toBe(502);
    expect((await unverified.json()).error).toMatch(/failed verification: expected sha256/);

    const streamed = await lines(await send('/api/pull', { model: 'LiquidAI/LFM2-VL-450M-GGUF' }));
    expect(streamed.at(-1)?.error).toMatch(/failed verification/);
    expect(store.records.size).toBe(0);
  });

  it('is a 501 where no hub access is wired', async () => {
    const { send } = routerHarness();
    const response = await send('/api/pull', { model: 'LiquidAI/LFM2-VL-450M-GGUF' });
    expect(response.status).toBe(501);
    expect((await response.json()).error).toMatch(/Pulling models is not available/);
  });
});
