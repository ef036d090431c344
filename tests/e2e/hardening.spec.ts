import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { request as httpRequest } from 'node:http';
import OpenAI from 'openai';
import type { Relay } from '../../src/relay/index.js';
import { layoutGguf } from '../support/gguf-writer.js';
import { testPorts } from '../support/test-ports.js';
import { importModel, installOpenAi, openTab } from './support/app.js';
import { watchConsole } from './support/console.js';
import { openPage, reloadEngineTab, startRelay, testEngineSecret } from './support/relay.js';

// The relay's trust with real tabs: the links it prints are the only way a page gets its secret
// and key, a pairing link makes a tab on another origin an engine, the app runs under its
// Content-Security-Policy, bad input reaches the real engine's router as a 400, and a tab that dies
// mid-upload leaves nothing in IndexedDB.

const port = testPorts.relayTrust;
const hello = [{ role: 'user' as const, content: 'Hi' }];
const slow = { timeout: 120_000 };

/** GET with node:http and any headers (fetch cannot send Sec-Fetch-Site or Host). */
function rawGet(
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, path, headers }, (incoming) => {
      let body = '';
      incoming.on('data', (chunk: Buffer) => void (body += chunk.toString()));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

/** A fresh context (own storage) with CSP enforced, and a page in it. */
async function freshPage(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ bypassCSP: false });
  return { context, page: await context.newPage() };
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

test.describe('the relay’s links, its CSP and a tab that dies', () => {
  test.describe.configure({ mode: 'serial' });
  test.setTimeout(300_000);
  let relay: Relay;
  const contexts: BrowserContext[] = [];

  test.beforeAll(async () => {
    relay = await startRelay(port, { clientKeys: { keys: ['sk-trust'], required: 'everyone' } });
  });

  test.afterAll(async () => {
    for (const context of contexts) await context.close();
    await relay.close();
  });

  test('a local program gets neither the secret nor the key by forging Sec-Fetch-Site', async () => {
    const forged = await rawGet('/lmtab/session', {
      Host: `127.0.0.1:${port}`,
      'Sec-Fetch-Site': 'same-origin',
    });
    expect(forged.status).toBe(401);
    expect(forged.body).not.toContain(testEngineSecret);
    expect(forged.body).not.toContain('sk-trust');
    const shown = await rawGet('/lmtab/session', { Authorization: `Bearer ${testEngineSecret}` });
    expect(JSON.parse(shown.body)).toEqual({ engineSecret: testEngineSecret, apiKey: 'sk-trust' });
  });

  test('the page opened without the printed link cannot serve the relay nor show the key', async ({
    browser,
  }) => {
    const { context, page } = await freshPage(browser);
    contexts.push(context);
    await openPage(page, `${relay.url}/`);
    await openTab(page, 'Developer');
    const panel = page.locator('lmtab-server-panel');
    await panel.getByRole('button', { name: 'Start Server' }).click();
    await expect(panel.getByTestId('server-detail')).toContainText(
      'this page has no engine secret for the relay',
    );
    await expect(panel.getByTestId('api-key')).toHaveCount(0);
    expect(relay.stats().engines).toHaveLength(0);
    const status = await page.evaluate(async () => (await fetch('/lmtab/session')).status);
    expect(status).toBe(401);
    await panel.getByRole('button', { name: 'Stop Server' }).click();
  });

  test('the link lmtab serve prints: the page keeps the secret, serves, shows the key, under the CSP', async ({
    browser,
  }) => {
    const { context, page } = await freshPage(browser);
    contexts.push(context);
    const problems = watchConsole(page);
    const app = await fetch(`${relay.url}/`);
    expect(app.headers.get('content-security-policy')).toContain(
      "script-src 'self' blob: 'wasm-unsafe-eval'",
    );
    await openPage(page, relay.appUrl());
    // The secret leaves the address bar (and the history) as the page opens.
    await expect.poll(() => page.url()).toBe(`${relay.url}/`);
    await importModel(page, 'tiny-lfm2.gguf');
    await openTab(page, 'Developer');
    const panel = page.locator('lmtab-server-panel');
    await expect(panel.getByTestId('api-key')).toHaveText('sk-trust');
    await panel.getByRole('button', { name: 'Start Server' }).click();
    await expect(panel.getByTestId('server-state')).toHaveText('Running');
    await expect.poll(() => relay.stats().engines.length).toBe(1);

    const keyed = new OpenAI({ baseURL: `${relay.url}/v1`, apiKey: 'sk-trust', maxRetries: 0 });
    const answer = await keyed.chat.completions.create({
      model: 'tiny-lfm2',
      messages: hello,
      max_tokens: 4,
    });
    expect(answer.usage?.completion_tokens).toBeGreaterThan(0);

    // The page's own API, the engine worker and WebAssembly run under the CSP; inline script
    // does not.
    await installOpenAi(page);
    const inPage = await page.evaluate(async () => {
      const client = (window as unknown as { openai: OpenAI }).openai;
      const done = await client.chat.completions.create({
        model: 'tiny-lfm2',
        messages: [{ role: 'user', content: 'Hi' }],
        max_tokens: 4,
      });
      return done.object;
    });
    expect(inPage).toBe('chat.completion');
    const blocked = await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.injected = true;';
      document.head.append(script);
      return (window as unknown as { injected?: boolean }).injected === true;
    });
    expect(blocked).toBe(false);
    // The one problem is the refused script: nothing the app does offends its own policy.
    expect(problems).toEqual([expect.stringMatching(/inline script.*Content Security Policy/i)]);

    // Bad input meets the real engine's router: a 400 that names the nesting limit.
    const depth = 100_000;
    const deep = Buffer.from('['.repeat(depth) + ']'.repeat(depth));
    const headers = { Authorization: 'Bearer sk-trust', 'Content-Type': 'application/json' };
    for (const path of ['/v1/chat/completions', '/api/chat']) {
      const refused = await fetch(`${relay.url}${path}`, { method: 'POST', headers, body: deep });
      expect(refused.status, path).toBe(400);
      expect(await refused.text()).toContain('JSON nested too deeply in the request body');
    }
    await panel.getByRole('button', { name: 'Stop Server' }).click();
    await expect.poll(() => relay.stats().engines.length).toBe(0);
  });

  test('a pairing link makes a tab on another origin an engine, and it rejoins after a reload', async ({
    browser,
  }) => {
    const { context, page } = await freshPage(browser);
    contexts.push(context);
    // localhost is another origin than 127.0.0.1, as a LAN address is for a tab on another device.
    const base = `http://localhost:${port}`;
    await openPage(page, relay.pairingUrl(base));
    await expect.poll(() => relay.stats().engines.length, slow).toBe(1);
    await expect.poll(() => page.url()).toBe(`${base}/?relay=connect`);
    await importModel(page, 'tiny-lfm2.gguf');
    const keyed = new OpenAI({ baseURL: `${relay.url}/v1`, apiKey: 'sk-trust', maxRetries: 0 });
    const answer = await keyed.chat.completions.create({
      model: 'tiny-lfm2',
      messages: hello,
      max_tokens: 4,
    });
    expect(answer.usage?.completion_tokens).toBeGreaterThan(0);
    await reloadEngineTab(page, relay, slow.timeout);
    const again = await keyed.models.list();
    expect(again.data.map((m) => m.id)).toContain('tiny-lfm2');
    await page.close();
    await expect.poll(() => relay.stats().engines.length).toBe(0);
  });

  test('a tab that dies mid-upload leaves no chunks: the next engine sweeps them', async ({
    browser,
  }) => {
    const { context, page } = await freshPage(browser);
    contexts.push(context);
    await openPage(page, relay.pairingUrl());
    await expect.poll(() => relay.stats().engines.length, slow).toBe(1);
    const before = await countChunks(page);

    // 96 MiB of a GGUF (a header, then zeros) through the relay into the tab's store, slowly.
    const { header } = layoutGguf({
      metadata: { 'general.architecture': { type: 'string', value: 'llama' } },
      tensors: [],
    });
    const total = 96 * 1024 * 1024;
    const upload = httpRequest({
      host: '127.0.0.1',
      port,
      path: `/api/blobs/sha256:${'0'.repeat(64)}`,
      method: 'POST',
      headers: { 'Content-Length': total, Authorization: 'Bearer sk-trust' },
    });
    upload.on('error', () => undefined);
    upload.write(header);
    const piece = Buffer.alloc(1024 * 1024);
    let sent = header.byteLength;
    const pump = setInterval(() => {
      if (sent + piece.length > total) return;
      upload.write(piece);
      sent += piece.length;
    }, 20);
    try {
      await expect.poll(() => countChunks(page), slow).toBeGreaterThan(before + 1);
      // The renderer dies as a crash or a kill would end it: no code of it runs again.
      await page.goto('chrome://crash').catch(() => undefined);
    } finally {
      clearInterval(pump);
      upload.destroy();
    }
    await expect.poll(() => relay.stats().engines.length, slow).toBe(0);
    const next = await context.newPage();
    await openPage(next, relay.pairingUrl());
    await expect.poll(() => relay.stats().engines.length, slow).toBe(1);
    await expect.poll(() => countChunks(next), slow).toBe(before);
  });
});
