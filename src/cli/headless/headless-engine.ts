import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { HeadlessState } from '../../bridge/wire.js';
import {
  chromiumArgsFromEnv,
  CONTAINER_CHROMIUM_ARGS,
  gpuChromiumArgs,
  hasNvidiaGpu,
  headlessStorage,
  mergeChromiumArgs,
} from '../../cloud/index.js';
import { LmtabError } from '../../errors/index.js';
import { reportEngineAdapter } from '../format/engine-adapter-line.js';
import { profileHolder, profileInUseError } from './profile-lock.js';

/**
 * Chromium switches for an unattended engine: no background traffic. The sandbox stays on: only
 * a container (see {@link sandboxArgs}) or `LMTAB_CHROMIUM_ARGS` turns it off.
 */
export const headlessArgs = [
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * Whether this process runs in a container (Docker's `/.dockerenv`, Podman's
 * `/run/.containerenv`, the `container` variable systemd and Podman set, or a container cgroup),
 * where Chromium's sandbox usually cannot start (no user namespaces).
 */
export function inContainer(
  env: NodeJS.ProcessEnv = process.env,
  exists: (path: string) => boolean = existsSync,
  readCgroup: () => string = () => readFileSync('/proc/1/cgroup', 'utf8'),
): boolean {
  if (exists('/.dockerenv') || exists('/run/.containerenv')) return true;
  if (env.container !== undefined && env.container !== '') return true;
  try {
    return /\b(docker|kubepods|containerd|libpod|lxc)\b/.test(readCgroup());
  } catch {
    return false;
  }
}

/**
 * The sandbox switches for the headless engine: the container ones (`--no-sandbox`,
 * `--disable-dev-shm-usage`) inside a container, none elsewhere, so that the page that runs
 * downloaded models and fetched images keeps Chromium's sandbox on a desktop or server.
 */
export function sandboxArgs(container: boolean): readonly string[] {
  return container ? CONTAINER_CHROMIUM_ARGS : [];
}

/** What decides the headless engine's Chromium switches (see {@link headlessLaunchArgs}). */
export interface HeadlessLaunchFacts {
  /** Whether this process runs in a container ({@link inContainer}). */
  container: boolean;
  /** Whether the machine has an NVIDIA GPU (`hasNvidiaGpu` in `src/cloud`). */
  nvidia: boolean;
  /** Switches added last (`LMTAB_CHROMIUM_ARGS`, or the caller's). */
  extra: readonly string[];
}

/**
 * The headless engine's Chromium switches: {@link headlessArgs}, the container's, on an NVIDIA GPU
 * the Vulkan ones and Dawn's `vulkan_enable_f16_on_nvidia` (without which llama.cpp's WebGPU backend
 * finds no `shader-f16` and runs the model on the CPU), then the extra ones, merged so that every
 * `--enable-features` value counts.
 */
export function headlessLaunchArgs(facts: HeadlessLaunchFacts): string[] {
  return mergeChromiumArgs(
    headlessArgs,
    sandboxArgs(facts.container),
    gpuChromiumArgs(facts.nvidia),
    facts.extra,
  );
}

/** Where Chrome, Chromium and Edge usually live, in the order they are tried. */
function browserCandidates(env: NodeJS.ProcessEnv): string[] {
  const windows = [env.PROGRAMFILES, env['PROGRAMFILES(X86)'], env.LOCALAPPDATA].flatMap((root) =>
    root === undefined
      ? []
      : [
          join(root, 'Google', 'Chrome', 'Application', 'chrome.exe'),
          join(root, 'Chromium', 'Application', 'chrome.exe'),
          join(root, 'Microsoft', 'Edge', 'Application', 'msedge.exe'),
        ],
  );
  return [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
    '/snap/bin/chromium',
    '/usr/bin/microsoft-edge',
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
    '/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge',
    ...windows,
  ];
}

/**
 * The browser the headless engine runs in: `LMTAB_BROWSER` when set, else the first system Chrome
 * or Chromium found. Throws `no_engine` saying where it looked when there is none.
 */
export function findBrowser(
  env: NodeJS.ProcessEnv = process.env,
  exists: (path: string) => boolean = existsSync,
): string {
  const chosen = env.LMTAB_BROWSER;
  if (chosen !== undefined && chosen !== '') {
    if (exists(chosen)) return chosen;
    throw new LmtabError(
      'no_engine',
      `LMTAB_BROWSER is "${chosen}", which does not exist: expected the path of a Chrome or ` +
        'Chromium executable.',
    );
  }
  const candidates = browserCandidates(env);
  const found = candidates.find((path) => exists(path));
  if (found !== undefined) return found;
  throw new LmtabError(
    'no_engine',
    `No Chrome or Chromium found for --headless: looked for ${candidates.join(', ')}. ` +
      'Install Chromium (e.g. `apt install chromium`) or set LMTAB_BROWSER to its path.',
  );
}

/** The page's globals the init script uses (the DOM's, typed here for a Node build). */
interface PageGlobals {
  top: unknown;
  localStorage: { setItem(key: string, value: string): void };
}

/** Options of {@link createHeadlessEngine}. */
export interface HeadlessEngineOptions {
  /** Chrome or Chromium to run (see {@link findBrowser}). */
  executablePath: string;
  /** Browser profile folder; it keeps the imported and downloaded models between runs. */
  profileDir: string;
  /** Told about the browser's life and the page's errors; default: nothing. */
  log?: (line: string) => void;
  /** Switches added to {@link headlessArgs} (GPU flags); default those in `LMTAB_CHROMIUM_ARGS`. */
  args?: readonly string[];
  /**
   * Whether to pass the NVIDIA switches (see {@link headlessLaunchArgs}); default whether this
   * machine has an NVIDIA GPU.
   */
  nvidia?: boolean;
  /**
   * localStorage entries the engine page finds before its scripts run; default the hub settings
   * of `HF_ENDPOINT` and `HF_TOKEN`, which the page cannot read from the environment itself.
   */
  storage?: Record<string, string>;
}

/** A headless Chromium whose one page is the relay's engine. */
export interface HeadlessEngine {
  /** Opens `url` (the relay's engine URL), launching the browser when it is not running. */
  start(url: string): Promise<void>;
  /** Its state for `/health`: a crashed page is replaced by a new one at once. */
  state(): { state: HeadlessState; detail?: string };
  /** Closes the browser. */
  close(): Promise<void>;
}

/**
 * The headless engine launcher: a persistent Chromium profile (so models stay downloaded) with one
 * page on the relay's own app, which connects back to the relay as an engine tab.
 */
export function createHeadlessEngine(options: HeadlessEngineOptions): HeadlessEngine {
  const log = options.log ?? (() => undefined);
  let context: BrowserContext | undefined;
  const watched = new WeakSet<Page>();
  const crashed = new WeakSet<Page>();
  let state: HeadlessState = 'idle';
  let detail: string | undefined;
  let lastUrl: string | undefined;
  let opening: Promise<void> | undefined;
  const setState = (next: HeadlessState, why?: string) => {
    state = next;
    detail = why;
  };

  async function launch(): Promise<BrowserContext> {
    await mkdir(options.profileDir, { recursive: true });
    // Chromium would fail with a raw ProcessSingleton dump; say who holds the profile instead.
    const holder = profileHolder(options.profileDir);
    if (holder !== undefined) throw profileInUseError(options.profileDir, holder);
    log(`starting headless ${options.executablePath} (profile ${options.profileDir})`);
    const launched = await chromium.launchPersistentContext(options.profileDir, {
      executablePath: options.executablePath,
      headless: true,
      args: headlessLaunchArgs({
        container: inContainer(),
        nvidia: options.nvidia ?? hasNvidiaGpu(),
        extra: options.args ?? chromiumArgsFromEnv(process.env),
      }),
      // lmtab serve stops in its own order (the relay drains, answers in progress finish, then
      // the engine closes). Playwright's own signal handlers closed Chromium at the first SIGTERM
      // or Ctrl+C, cutting every answer in flight at once (seen by the soak: streams failed 0.2 s
      // after the relay's SIGTERM).
      handleSIGTERM: false,
      handleSIGINT: false,
    });
    const storage = options.storage ?? headlessStorage(process.env);
    if (Object.keys(storage).length > 0) {
      await launched.addInitScript((entries: Record<string, string>) => {
        // Runs in the page; this file compiles for Node, without the DOM's types.
        const page = globalThis as unknown as PageGlobals;
        if (page.top !== page) return;
        for (const [key, value] of Object.entries(entries)) page.localStorage.setItem(key, value);
      }, storage);
    }
    launched.on('close', () => {
      if (context !== launched) return;
      context = undefined;
      setState('idle', 'the headless browser closed; the next request starts it again');
      log('headless browser closed');
    });
    return launched;
  }

  /** A page that has not crashed (a crashed one only answers "Page crashed"), or a new one. */
  async function enginePage(current: BrowserContext): Promise<Page> {
    const pages = current.pages();
    for (const page of pages) {
      if (crashed.has(page)) await page.close().catch(() => undefined);
    }
    const page = pages.find((p) => !crashed.has(p)) ?? (await current.newPage());
    if (!watched.has(page)) {
      watched.add(page);
      page.on('pageerror', (error) => log(`engine page error: ${error.message}`));
      page.on('crash', () => {
        crashed.add(page);
        setState('crashed', 'the engine page crashed (its renderer died); opening a new page');
        log('engine page crashed; opening a new one');
        // Replaced at once: the new page connects again and loads models on the next request.
        if (lastUrl !== undefined) void open(lastUrl).catch(() => undefined);
      });
    }
    return page;
  }

  /** Opens `url` in the engine page; calls while one opening is under way share it. */
  function open(url: string): Promise<void> {
    lastUrl = url;
    opening ??= (async () => {
      try {
        if (state !== 'crashed') setState('starting');
        context ??= await launch();
        let page = await enginePage(context);
        try {
          await page.goto(url);
        } catch (error) {
          // A renderer that dies while the page loads (seen once under heavy load) gets one new page.
          if (!crashed.has(page)) throw error;
          page = await enginePage(context);
          await page.goto(url);
        }
        setState('running');
        // Said once the page holds the engine; a page reopened after a crash says it again.
        void reportEngineAdapter(page, { log });
      } catch (error) {
        setState('failed', error instanceof Error ? error.message : String(error));
        throw error;
      } finally {
        opening = undefined;
      }
    })();
    return opening;
  }

  return {
    // A page that lost its connection (a relay restart) is reloaded, not doubled.
    start: (url) => open(url),
    state: () => ({ state, ...(detail === undefined ? {} : { detail }) }),
    async close() {
      const current = context;
      context = undefined;
      await current?.close();
    },
  };
}
