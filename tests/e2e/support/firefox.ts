import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { expect } from '@playwright/test';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import type { EngineStatusBody } from '../../../src/api/index.js';
import { chromiumWebgpuPaths, lavapipeEnv } from '../../support/webgpu/chromium-webgpu.mjs';
import { fixture } from './app.js';

// Debian's Firefox ESR, driven over WebDriver BiDi by puppeteer-core: Playwright drives only its own
// build of Firefox (its `moz-firefox` channel fails at newPage() on ESR 153).

/** Debian's Firefox ESR (tests/support/ensure-browsers.mjs installs it); LMTAB_FIREFOX moves it. */
export const firefoxPath = process.env.LMTAB_FIREFOX ?? '/usr/bin/firefox-esr';

/**
 * The prefs that give ESR 153 WebGPU on Linux: off by default there, and lavapipe is on its
 * blocklist; the engine's worker needs it too.
 */
const webgpuPrefs = {
  'dom.webgpu.enabled': true,
  'gfx.webgpu.ignore-blocklist': true,
  'dom.webgpu.workers.enabled': true,
};

/**
 * Starts Firefox ESR headless with a fresh profile: as a person has it (no WebGPU), or with
 * WebGPU on Mesa's lavapipe (the `webgpu-setup` project installs it; Firefox needs no layer).
 */
export function launchFirefox({ webgpu }: { webgpu: boolean }): Promise<Browser> {
  return puppeteer.launch({
    browser: 'firefox',
    executablePath: firefoxPath,
    headless: true,
    env: webgpu ? lavapipeEnv(chromiumWebgpuPaths()) : process.env,
    extraPrefsFirefox: webgpu ? webgpuPrefs : {},
  });
}

/**
 * A new tab whose engine runs the specs' thread count (`LMTAB_THREADS`, 1: playwright.config.ts),
 * as the Chromium specs' origins get it from their storage state: set before the app's scripts
 * run, unless the page has settings of its own. Two ggml threads on two cores shared with another
 * worker wait for a core at every op (a Firefox test took minutes so beside the WebGPU specs).
 */
export async function newFirefoxPage(browser: Browser): Promise<Page> {
  const page = await browser.newPage();
  const settings = JSON.stringify({ threads: Number(process.env.LMTAB_THREADS ?? 1) });
  await page.evaluateOnNewDocument((settings) => {
    // Not on about:blank, whose localStorage throws.
    if (!location.protocol.startsWith('http')) return;
    if (localStorage.getItem('lmtab.engine-settings') === null) {
      localStorage.setItem('lmtab.engine-settings', settings);
    }
  }, settings);
  return page;
}

/**
 * Opens `url` (the app) and waits until its service worker controls the page. Polled from here:
 * puppeteer's waitForFunction builds its poller with `new Function` in the page, which the app's
 * Content-Security-Policy refuses (an uncaught error in the page).
 */
export async function openFirefoxApp(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await expect
    .poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null), {
      timeout: 60_000,
      message: `the service worker of ${url} never took control`,
    })
    .toBe(true);
}

/**
 * Stores a fixture as `ollama create` does, through the page's service worker: the file's bytes to
 * `POST /api/blobs/sha256:…`, then `POST /api/create` naming it. Answers the model's name.
 */
export async function createFromFixture(page: Page, file: string): Promise<string> {
  const bytes = await readFile(fixture(file));
  const digest = createHash('sha256').update(bytes).digest('hex');
  const model = basename(file, '.gguf');
  const answers = await page.evaluate(
    async ({ base64, digest, file, model }) => {
      const body = new Blob([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))]);
      const upload = await fetch(`/api/blobs/sha256:${digest}`, { method: 'POST', body });
      const create = await fetch('/api/create', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ model, files: { [file]: `sha256:${digest}` }, stream: false }),
      });
      return { upload: upload.status, create: create.status, text: await create.text() };
    },
    { base64: bytes.toString('base64'), digest, file, model },
  );
  if (answers.upload !== 201 || answers.create !== 200) {
    throw new Error(`creating ${model} in Firefox: ${JSON.stringify(answers)}`);
  }
  return model;
}

/** What `GET /api/lmtab/engine` answers in `page`, through its service worker. */
export function firefoxEngineStatus(page: Page): Promise<EngineStatusBody> {
  return page.evaluate(async () => (await fetch('/api/lmtab/engine')).json());
}

/** The page's console errors and warnings and its uncaught exceptions, as they come. */
export function firefoxProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error' && message.type() !== 'warn') return;
    const where = message.location().url;
    problems.push(`${message.type()}: ${message.text()}${where ? ` (${where})` : ''}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${String(error)}`));
  return problems;
}
