import { defineConfig } from '@playwright/test';
import { testPorts } from './tests/support/test-ports.js';

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
/** A software WebGPU adapter (SwiftShader), so the WebGPU path runs without a GPU. */
const webgpuArgs = [
  '--enable-unsafe-webgpu',
  '--use-webgpu-adapter=swiftshader',
  '--enable-unsafe-swiftshader',
];

export default defineConfig({
  testDir: 'tests/e2e',
  globalSetup: './tests/e2e/global-setup.ts',
  // Two cores: one engine at a time keeps timings sane and tests independent.
  workers: 1,
  fullyParallel: false,
  timeout: 120_000,
  expect: { timeout: 30_000 },
  retries: 0,
  reporter: [['list'], ['json', { outputFile: 'reports/e2e.json' }]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  projects: [
    {
      name: 'chromium',
      grepInvert: /@webgpu/,
      use: { browserName: 'chromium', launchOptions: { executablePath, args: baseArgs } },
    },
    {
      name: 'webgpu',
      grep: /@webgpu/,
      use: {
        browserName: 'chromium',
        launchOptions: { executablePath, args: [...baseArgs, ...webgpuArgs] },
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
