import { defineConfig } from '@playwright/test';
import { testPorts } from './tests/support/test-ports.js';
import { chromiumWebgpuEnv, chromiumWebgpuPaths } from './tests/support/webgpu/chromium-webgpu.mjs';

const port = Number(process.env.LMTAB_TEST_PORT ?? testPorts.app);
/** Debian's Chromium: the only browser this project can install here (no browser downloads). */
const executablePath = process.env.LMTAB_BROWSER ?? '/usr/bin/chromium';
const baseArgs = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  // The Chat tab's microphone: Chromium's fake device (a beeping tone), allowed without a prompt.
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
];
/**
 * Chromium's SwiftShader adapter: WebGPU without shader-f16, so llama.cpp runs on the CPU. Only for
 * the tests that cannot run on lavapipe yet (tagged `@swiftshader`).
 */
const swiftshaderArgs = [
  '--enable-unsafe-webgpu',
  '--use-webgpu-adapter=swiftshader',
  '--enable-unsafe-swiftshader',
];

/**
 * A real WebGPU adapter with shader-f16: Mesa's lavapipe, which Chromium takes with the layer of
 * tests/support/webgpu/chromium-webgpu.mjs (the `webgpu-setup` project installs both; the browser
 * process's environment names them). Debian's browser binary itself, not the /usr/bin/chromium
 * script, whose default flags would come on top. Each flag is needed; `--enable-features` replaces
 * Playwright's own (the last one wins), so theirs are repeated after Vulkan.
 */
const webgpuBrowser = process.env.LMTAB_WEBGPU_BROWSER ?? '/usr/lib/chromium/chromium';
const webgpuArgs = [
  '--ignore-gpu-blocklist',
  '--use-angle=vulkan',
  '--enable-features=Vulkan,CDPScreenshotNewSurface,SkipListAccountsWithoutGaiaCookies',
];

/**
 * Specs that fill the disk, the memory or both cores on their own: `npm test` runs them as a suite
 * of their own after the others (`e2e-heavy`). Beside the light specs they took twice their time
 * alone (the agents four times). They are two projects of one worker each, so that the storage
 * specs (real-size models, a 2 GiB upload) never meet, and run beside the others (clean installs
 * and builds, the agents): 6.8 min against 10.2 one at a time. A real-size load that never ended
 * there (the service worker's five minutes, then "Failed to fetch") was a read of the stored model
 * that Chromium never answered under load; the engine now reads in watched pieces (docs/engine.md).
 */
const storageSpecs = [/real-sizes\.spec/, /upload-stream\.spec/];
const toolSpecs = [/install\.spec/, /agents\.spec/];
const heavySpecs = [...storageSpecs, ...toolSpecs];
/** The spec of the `firefox` project: it launches Firefox ESR itself, no Chromium page. */
const firefoxSpec = /firefox\.spec/;

/**
 * Engines in the specs run one ggml thread: two workers share two cores, and a second thread waits
 * for a core at every op's barrier (openai-api and gui-chat side by side: 6.2 min with the
 * default two threads, 4.0 min with one). The app's tabs read it from localStorage (a spec's own
 * settings replace it); the relays the specs start give it to their headless engines
 * (LMTAB_THREADS). Specs of the thread count itself (pwa) use origins of their own.
 */
process.env.LMTAB_THREADS ??= '1';

/**
 * V8 runs the engines' WebAssembly on its baseline compiler (Liftoff) only, in the functional specs:
 * tiering hot functions up to TurboFan cost about 3 CPU-seconds for every engine that starts (the
 * suite starts about two hundred, each on a tiny model that generates a few tokens), and the two
 * tiers compute the same results. The heavy specs (real sizes, uploads) and the WebGPU specs keep
 * V8's default tiering, and `npm run bench` measures speed on it. The relays the specs start pass
 * it to their headless engines (LMTAB_CHROMIUM_ARGS).
 */
const baselineWasm = '--js-flags=--liftoff-only';
process.env.LMTAB_CHROMIUM_ARGS ??= baselineWasm;
function oneThreadEngines(origin: string) {
  const settings = { name: 'lmtab.engine-settings', value: JSON.stringify({ threads: 1 }) };
  return { cookies: [], origins: [{ origin, localStorage: [settings] }] };
}

const chromium = {
  browserName: 'chromium' as const,
  launchOptions: { executablePath, args: [...baseArgs, baselineWasm] },
};
const chromiumHeavy = {
  browserName: 'chromium' as const,
  launchOptions: { executablePath, args: baseArgs },
};

export default defineConfig({
  testDir: 'tests/e2e',
  globalSetup: './tests/e2e/global-setup.ts',
  // Two workers on two cores: most specs wait on the engine, the page and the network, not the CPU
  // (CI's clean clone: 47 min with one worker). Each spec file has ports of its own
  // (tests/support/test-ports.ts), and the tests of one file run in order in one worker.
  workers: 2,
  fullyParallel: false,
  timeout: 120_000,
  expect: { timeout: 30_000 },
  retries: 0,
  // `npm test` runs the heavy project as a suite of its own (reports/e2e-heavy.json).
  reporter: [
    ['list'],
    ['json', { outputFile: process.env.LMTAB_E2E_REPORT ?? 'reports/e2e.json' }],
  ],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    storageState: oneThreadEngines(`http://127.0.0.1:${port}`),
    // A trace records DOM snapshots and screencast frames at every step of every test, passing or
    // not: a quarter of the suite's CPU (39 tests of four specs: 2.5 min with it, 1.8 without).
    // LMTAB_TRACE=1 keeps one for each failed test, to open with `npx playwright show-trace`.
    trace: process.env.LMTAB_TRACE === '1' ? 'retain-on-failure' : 'off',
    screenshot: 'only-on-failure',
  },
  projects: [
    {
      name: 'heavy-storage',
      grepInvert: /@webgpu|@swiftshader/,
      testMatch: storageSpecs,
      workers: 1,
      use: chromiumHeavy,
    },
    {
      name: 'heavy-tools',
      grepInvert: /@webgpu|@swiftshader/,
      testMatch: toolSpecs,
      workers: 1,
      use: chromiumHeavy,
    },
    {
      name: 'chromium',
      grepInvert: /@webgpu|@swiftshader/,
      testIgnore: [...heavySpecs, firefoxSpec],
      use: chromium,
    },
    {
      // Debian's Firefox ESR, which the spec drives itself (puppeteer-core over WebDriver BiDi); its
      // WebGPU part needs lavapipe and the F16 fixture of the setup project.
      name: 'firefox',
      testMatch: firefoxSpec,
      dependencies: ['webgpu-setup'],
    },
    {
      // Installs lavapipe and builds the layer (once per machine), and writes the WebGPU fixtures.
      name: 'webgpu-setup',
      testMatch: /webgpu\.setup\.ts/,
    },
    {
      name: 'webgpu',
      grep: /@webgpu/,
      grepInvert: /@swiftshader/,
      testIgnore: firefoxSpec,
      dependencies: ['webgpu-setup'],
      use: {
        browserName: 'chromium',
        launchOptions: {
          executablePath: webgpuBrowser,
          args: [...baseArgs, ...webgpuArgs],
          env: chromiumWebgpuEnv(chromiumWebgpuPaths()),
        },
      },
    },
    {
      name: 'webgpu-swiftshader',
      grep: /@swiftshader/,
      use: {
        browserName: 'chromium',
        launchOptions: { executablePath, args: [...baseArgs, ...swiftshaderArgs] },
      },
    },
  ],
  webServer: {
    command: `node bin/lmtab.js serve --port ${port}`,
    url: `http://127.0.0.1:${port}/health`,
    reuseExistingServer: !process.env.CI,
    timeout: 60_000,
  },
});
