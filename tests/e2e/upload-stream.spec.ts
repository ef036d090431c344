import { chromium, expect, test, type BrowserContext, type Page } from '@playwright/test';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pulledBodyPath } from '../../src/bridge/wire.js';
import type { Relay } from '../../src/relay/index.js';
import { layoutGguf, type GgufModel } from '../support/gguf-writer.js';
import { testPorts } from '../support/test-ports.js';
import { chromiumProcesses, residentBytes } from './support/process-memory.js';
import { openPage, startRelay } from './support/relay.js';

// Request bodies stream from the client into the engine tab's store, never held whole: a 2 GiB
// model file through the relay and 256 MiB from the page through the service worker, with the
// engine tab's memory measured from /proc while they stream. The browser runs with a real profile
// on disk (a persistent context) so IndexedDB writes to disk as it does for people.

const mib = 1024 * 1024;
/**
 * The most the engine tab's renderer (page, engine worker, service worker) may hold while a body
 * streams through it. Measured on a loaded 2-core machine: idle 198 to 237 MiB, peaks 432 to 458 MiB
 * over a 2 GiB upload; holding the file whole, as before, needs more than 2 GiB.
 */
const rendererBound = 640 * mib;
const executablePath = process.env.LMTAB_BROWSER ?? '/usr/bin/chromium';

/** A GGUF of `tensorBytes` zero bytes of F32 weights behind a valid header. */
function zeroGguf(tensorBytes: number): { header: Uint8Array; totalBytes: number } {
  const elements = tensorBytes / 4;
  const model: GgufModel = {
    metadata: {
      'general.architecture': { type: 'string', value: 'llama' },
      'general.name': { type: 'string', value: 'upload-stream' },
    },
    tensors: [
      {
        name: 'token_embd.weight',
        dims: [8192, elements / 8192],
        type: 'F32',
        data: { kind: 'constant', value: 0 },
      },
    ],
  };
  const { header, totalBytes } = layoutGguf(model);
  return { header, totalBytes };
}

/** Writes a GGUF of zeros as a sparse file (its header, then a hole): instant, no disk used. */
async function writeSparseGguf(path: string, tensorBytes: number): Promise<number> {
  const { header, totalBytes } = zeroGguf(tensorBytes);
  await writeFile(path, header);
  await truncate(path, totalBytes);
  return totalBytes;
}

async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 4 * mib })) {
    hash.update(chunk as Buffer);
  }
  return hash.digest('hex');
}

/** sha256 of `header` followed by zeros up to `totalBytes`. */
function sha256OfZeroGguf(header: Uint8Array, totalBytes: number): string {
  const hash = createHash('sha256').update(header);
  const zeros = Buffer.alloc(4 * mib);
  for (let left = totalBytes - header.byteLength; left > 0; left -= zeros.byteLength) {
    hash.update(zeros.subarray(0, Math.min(left, zeros.byteLength)));
  }
  return hash.digest('hex');
}

/** Peak resident memory of the browser's processes while sampling, in bytes. */
interface MemoryPeaks {
  /** The largest renderer (the engine tab, its engine worker and the service worker). */
  renderer: number;
  /** Every renderer together. */
  renderers: number;
  browser: number;
  /** The page's main-thread JS heap (CDP Performance.getMetrics), used bytes. */
  pageHeap: number;
  samples: number;
}

/** Samples the profile's Chromium processes every 200 ms until stopped. */
function sampleMemory(profileDir: string, page: Page): { stop(): Promise<MemoryPeaks> } {
  const peaks: MemoryPeaks = { renderer: 0, renderers: 0, browser: 0, pageHeap: 0, samples: 0 };
  let running = true;
  const loop = (async () => {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    do {
      const processes = chromiumProcesses(profileDir);
      const renderers = processes
        .filter((p) => p.type === 'renderer')
        .map((p) => residentBytes(p.pid));
      peaks.renderer = Math.max(peaks.renderer, ...renderers);
      peaks.renderers = Math.max(
        peaks.renderers,
        renderers.reduce((a, b) => a + b, 0),
      );
      for (const p of processes.filter((q) => q.type === 'browser')) {
        peaks.browser = Math.max(peaks.browser, residentBytes(p.pid));
      }
      const { metrics } = await cdp.send('Performance.getMetrics');
      const heap = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
      peaks.pageHeap = Math.max(peaks.pageHeap, heap);
      peaks.samples += 1;
      await new Promise((resolve) => setTimeout(resolve, 200));
    } while (running);
    await cdp.detach().catch(() => undefined);
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return peaks;
    },
  };
}

function describePeaks(peaks: MemoryPeaks): string {
  const m = (bytes: number) => `${(bytes / mib).toFixed(0)} MiB`;
  return (
    `renderer ${m(peaks.renderer)} (all renderers ${m(peaks.renderers)}), browser process ` +
    `${m(peaks.browser)}, page JS heap ${m(peaks.pageHeap)}, ${peaks.samples} samples`
  );
}

/** POSTs a file from disk through node:http with its Content-Length, streaming it. */
function uploadFile(
  url: string,
  path: string,
  size: number,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: 'POST', headers: { 'Content-Length': String(size) } },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => void (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
    createReadStream(path, { highWaterMark: mib }).pipe(request);
  });
}

/** Counts the chunks in the engine's IndexedDB chunk store (0 before the store exists). */
function countChunks(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const names = (await indexedDB.databases()).map((d) => d.name);
    if (!names.includes('lmtab-chunks')) return 0;
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open('lmtab-chunks');
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    try {
      if (!db.objectStoreNames.contains('chunks')) return 0;
      return await new Promise<number>((resolve, reject) => {
        const count = db.transaction('chunks').objectStore('chunks').count();
        count.onsuccess = () => resolve(count.result);
        count.onerror = () => reject(count.error);
      });
    } finally {
      db.close();
    }
  });
}

async function modelNames(relay: Relay): Promise<string[]> {
  const tags = (await (await fetch(`${relay.url}/api/tags`)).json()) as {
    models: { name: string }[];
  };
  return tags.models.map((m) => m.name);
}

test.describe('streamed request bodies', () => {
  test.describe.configure({ mode: 'serial' });
  let workDir: string;
  let profileDir: string;
  let context: BrowserContext;
  let page: Page;
  let relay: Relay;

  test.beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'lmtab-upload-'));
    profileDir = join(workDir, 'profile');
    relay = await startRelay(testPorts.relayUpload);
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath,
      args: ['--no-sandbox', '--disable-background-networking', '--no-first-run'],
    });
    page = context.pages()[0] ?? (await context.newPage());
    await openPage(page, relay.pairingUrl());
    await expect.poll(() => relay.stats().engines.length).toBe(1);
  });

  test.afterAll(async () => {
    await context?.close();
    await relay?.close();
    // The profile holds the stored uploads (gigabytes): nothing may stay behind.
    await rm(workDir, { recursive: true, force: true });
  });

  test('a 2 GiB model file streams through the relay into the store within the memory bound', async () => {
    test.setTimeout(300_000);
    const path = join(workDir, 'big.gguf');
    const size = await writeSparseGguf(path, 2048 * mib);
    const hex = await sha256OfFile(path);
    const idle = describePeaks(await sampleMemory(profileDir, page).stop());

    // The tab fetches the body from the relay (src/relay/exchange/pulled-bodies.ts): no WebSocket frame
    // carries it.
    const bodyFetches: string[] = [];
    const noteBodyFetch = (request: { url(): string }) => {
      if (new URL(request.url()).pathname.startsWith(pulledBodyPath))
        bodyFetches.push(request.url());
    };
    page.on('request', noteBodyFetch);
    const sampler = sampleMemory(profileDir, page);
    const started = Date.now();
    const answer = await uploadFile(`${relay.url}/api/blobs/sha256:${hex}`, path, size);
    page.off('request', noteBodyFetch);
    const seconds = (Date.now() - started) / 1000;
    const peaks = await sampler.stop();
    await rm(path);
    console.log(
      `2 GiB upload through the relay: ${seconds.toFixed(1)} s ` +
        `(${(size / mib / seconds).toFixed(0)} MiB/s); idle: ${idle}; during: ${describePeaks(peaks)}`,
    );
    expect(answer).toEqual({ status: 201, body: '' });
    expect(bodyFetches).toHaveLength(1);
    expect(peaks.samples).toBeGreaterThan(5);
    expect(peaks.renderer).toBeLessThan(rendererBound);

    // Stored whole and verified: HEAD finds it, and a second upload is not needed.
    const head = await fetch(`${relay.url}/api/blobs/sha256:${hex}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await countChunks(page)).toBe(Math.ceil(size / (16 * mib)));
  });

  test('an upload cut off mid-way through the relay leaves no chunks and no record', async () => {
    const path = join(workDir, 'cut.gguf');
    const size = await writeSparseGguf(path, 256 * mib);
    const hex = await sha256OfFile(path);
    const before = await countChunks(page);
    const names = await modelNames(relay);

    const request: ClientRequest = httpRequest(`${relay.url}/api/blobs/sha256:${hex}`, {
      method: 'POST',
      headers: { 'Content-Length': String(size) },
    });
    request.on('error', () => undefined);
    const file = createReadStream(path, { highWaterMark: mib });
    file.pipe(request);
    // Some chunks reach the store before the client goes away.
    await expect.poll(() => countChunks(page), { timeout: 60_000 }).toBeGreaterThan(before + 1);
    file.unpipe(request);
    file.destroy();
    request.destroy();

    await expect.poll(() => countChunks(page), { timeout: 30_000 }).toBe(before);
    expect(await modelNames(relay)).toEqual(names);
    const head = await fetch(`${relay.url}/api/blobs/sha256:${hex}`, { method: 'HEAD' });
    expect(head.status).toBe(404);
    await expect.poll(() => relay.stats().engines[0].active).toBe(0);
    await rm(path);
  });

  test('the service worker streams a 256 MiB body from the page into the store; the tab setting limits it; an abort leaves nothing', async () => {
    test.setTimeout(300_000);
    const limit = 257 * mib;
    await page.evaluate(
      (maxBlobBytes) =>
        localStorage.setItem('lmtab.api-settings', JSON.stringify({ maxBlobBytes })),
      limit,
    );
    // The engine reads its settings when it starts: a reload restarts it.
    await page.reload();
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await expect.poll(() => relay.stats().engines.length).toBe(1);

    const { header, totalBytes } = zeroGguf(256 * mib);
    const hex = sha256OfZeroGguf(header, totalBytes);
    const before = await countChunks(page);
    /** Streams a GGUF of zeros from the page (no Content-Length), aborting after `abortAt` bytes. */
    const post = (digest: string, bytes: number, abortAt?: number) =>
      page.evaluate(
        async ({ header, bytes, digest, abortAt }) => {
          const piece = new Uint8Array(1024 * 1024);
          const controller = new AbortController();
          let sent = 0;
          const body = new ReadableStream<Uint8Array>(
            {
              pull(stream) {
                if (abortAt !== undefined && sent >= abortAt) return controller.abort();
                if (sent >= bytes) return stream.close();
                const next =
                  sent === 0
                    ? new Uint8Array(header)
                    : piece.slice(0, Math.min(piece.length, bytes - sent));
                sent += next.byteLength;
                stream.enqueue(next);
              },
            },
            { highWaterMark: 0 },
          );
          try {
            const response = await fetch(`/api/blobs/sha256:${digest}`, {
              method: 'POST',
              body,
              signal: controller.signal,
              duplex: 'half',
            } as RequestInit);
            return { status: response.status, body: await response.text(), sent };
          } catch (error) {
            return { status: 0, body: String(error), sent };
          }
        },
        { header: [...header], bytes, digest, abortAt },
      );

    const sampler = sampleMemory(profileDir, page);
    const started = Date.now();
    const stored = await post(hex, totalBytes);
    const seconds = (Date.now() - started) / 1000;
    const peaks = await sampler.stop();
    console.log(
      `256 MiB from the page through the service worker: ${seconds.toFixed(1)} s; ${describePeaks(peaks)}`,
    );
    expect(stored).toEqual({ status: 201, body: '', sent: totalBytes });
    expect(peaks.renderer).toBeLessThan(rendererBound);
    const afterStored = await countChunks(page);
    expect(afterStored).toBe(before + Math.ceil(totalBytes / (16 * mib)));

    // Over the tab's limit, with no Content-Length: refused while streaming, nothing kept. (Chromium
    // still drains the page's upload stream after the service worker's answer, discarding it.)
    const big = zeroGguf(258 * mib);
    const tooLarge = await post(sha256OfZeroGguf(big.header, big.totalBytes), big.totalBytes);
    expect(tooLarge.status).toBe(413);
    expect(JSON.parse(tooLarge.body)).toEqual({
      error: expect.stringMatching(
        /^Model file too large: the limit is 269484032 bytes \(257 MiB\), received at least \d+ bytes/,
      ),
    });
    await expect.poll(() => countChunks(page), { timeout: 30_000 }).toBe(afterStored);

    // The page gives up half-way: the chunks written are deleted, no record is made.
    const cut = zeroGguf(128 * mib);
    const cutHex = sha256OfZeroGguf(cut.header, cut.totalBytes);
    const names = await modelNames(relay);
    const aborted = await post(cutHex, cut.totalBytes, 64 * mib);
    expect(aborted.status).toBe(0);
    expect(aborted.body).toContain('AbortError');
    await expect.poll(() => countChunks(page), { timeout: 30_000 }).toBe(afterStored);
    expect(await modelNames(relay)).toEqual(names);
    const head = await page.evaluate(
      async (digest) => (await fetch(`/api/blobs/sha256:${digest}`, { method: 'HEAD' })).status,
      cutHex,
    );
    expect(head).toBe(404);
  });
});
