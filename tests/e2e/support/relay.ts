import { expect, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import type { EngineSettings } from '../../../src/engine/index.js';
import { createRelay, type Relay, type RelayOptions } from '../../../src/relay/index.js';
import { importModel, withEngineSettings } from './app.js';
import { testPorts } from '../../support/test-ports.js';

/** Ports the relay specs may use (other specs run beside them on other ports). */
export const relayPorts = {
  bare: testPorts.relayBare,
  lan: testPorts.relayLan,
  engines: testPorts.relayEngines,
  headless: testPorts.relayHeadless,
  cors: testPorts.relayCors,
  pull: testPorts.relayPull,
  tools: testPorts.relayTools,
  protocols: testPorts.relayProtocols,
  update: testPorts.relayUpdate,
} as const;

/**
 * The engine secret of the specs' relays: one for the run, as `lmtab serve` keeps one in
 * LMTAB_HOME, so that a tab paired once joins a restarted relay again.
 */
export const testEngineSecret = 'e2e0'.repeat(16);

/** Starts a relay in this process on `port`, serving the built app. */
export function startRelay(port: number, options: Partial<RelayOptions> = {}): Promise<Relay> {
  return createRelay({
    appDir: 'dist',
    host: '127.0.0.1',
    port,
    version: 'test',
    engineSecret: testEngineSecret,
    ...options,
  });
}

/** Opens `url` and waits until the service worker controls the page. */
export async function openPage(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
}

/** A browser context of its own (own storage, own engine) with a tab that serves `relay`. */
export interface EngineTab {
  context: BrowserContext;
  page: Page;
}

/** Options of {@link openEngineTab}. */
export interface EngineTabOptions {
  /** Load settings the tab's engine starts with, as the Developer tab saves them; none by default. */
  engineSettings?: EngineSettings;
}

/**
 * Opens the relay's pairing link (the connect flag, the secret in the fragment) in a fresh
 * context, so the tab is an engine of its own, and imports `models` (file names of fixtures,
 * optionally with a projector) into it.
 */
export async function openEngineTab(
  browser: Browser,
  relay: Relay,
  models: { file: string; projector?: string }[],
  options: EngineTabOptions = {},
): Promise<EngineTab> {
  const before = relay.stats().engines.length;
  const context = await browser.newContext();
  const { engineSettings } = options;
  if (engineSettings !== undefined) await withEngineSettings(context, engineSettings);
  const page = await context.newPage();
  // The app's first visit (service worker install, the reload for isolation, the engine worker's
  // start) and the imports come first, then the pairing link: opened first, under a loaded machine
  // the tab sometimes had not joined within 30 s (CI, agents.spec and openapi-conformance.spec).
  await openPage(page, relay.appUrl());
  for (const { file, projector } of models) await importModel(page, file, projector);
  await openPage(page, relay.pairingUrl());
  await expect.poll(() => relay.stats().engines.length, { timeout: 90_000 }).toBe(before + 1);
  return { context, page };
}

/**
 * The load settings of engines that hear and speak with the tiny audio fixtures: one thread. Their
 * ops take microseconds, and ggml's threads meet at a barrier after every op: on two cores shared
 * with the browser and other jobs, the second thread waits for a core at each one. The speech
 * pipeline computes about three graphs per 80 ms frame (backbone, flow net, an eighth of the
 * decoder); on the CI's two cores (load average 5 to 18) a frame took 150 to 740 ms on two
 * threads and 12 to 60 ms on one, a one-second transcription 61 to 90 s against 2 to 15 s.
 */
export const hearingEngineSettings: EngineSettings = { threads: 1 };

/**
 * The models of the audio specs' engine tab: the tiny text model with an audio projector (it
 * hears), the same text model without one (it does not), and the tiny Pocket TTS (it speaks).
 */
export const hearingModels = [
  { file: 'tiny-lfm2-audio.gguf', projector: 'mmproj-tiny-lfm2-audio.gguf' },
  { file: 'tiny-lfm2.gguf' },
  { file: 'tiny-pocket-tts.gguf', projector: 'mmproj-tiny-pocket-tts.gguf' },
];

/** Runs `lmtab` (the built CLI) with `args`; resolves once it prints its serving line. */
export async function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, ['bin/lmtab.js', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => void (output += chunk.toString()));
  await new Promise<void>((resolve) => {
    const check = () => {
      if (output.includes('serving the app') || child.exitCode !== null) resolve();
      else setTimeout(check, 50);
    };
    child.on('close', () => resolve());
    check();
  });
  return { child, output: () => output };
}

/** Stops a CLI process and waits for it to exit. */
export async function stopCli(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

/**
 * Reloads an engine tab and waits until the relay holds the tab's new engine. Right after the
 * reload the old socket may still count for a moment: polling for one engine passed at once, and
 * a request sent then got 503 no_engine as the old socket closed (seen in CI). A new engine has
 * served nothing yet, so this waits for exactly one engine that has served no request; the tab's
 * old engine must have served one.
 */
export async function reloadEngineTab(page: Page, relay: Relay, timeout = 30_000): Promise<void> {
  expect(relay.stats().engines.map((engine) => engine.served > 0)).toEqual([true]);
  await page.reload();
  await expect
    .poll(() => relay.stats().engines.map((engine) => engine.served), { timeout })
    .toEqual([0]);
}
