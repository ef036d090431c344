import { expect, test } from '@playwright/test';
import { testPorts } from '../support/test-ports.js';
import { runCli, stopCli } from './support/relay.js';

test('lmtab serve --headless prints which WebGPU adapter its engine got', async () => {
  test.setTimeout(180_000);
  const port = testPorts.headlessGpu;
  // SwiftShader is this machine's only WebGPU adapter; LMTAB_CHROMIUM_ARGS lets Chromium offer it.
  const cli = await runCli(
    [
      'serve',
      '--headless',
      '--port',
      String(port),
      '--profile-dir',
      test.info().outputPath('profile'),
    ],
    {
      ...process.env,
      LMTAB_CHROMIUM_ARGS:
        '--no-sandbox --enable-unsafe-webgpu --use-webgpu-adapter=swiftshader --enable-unsafe-swiftshader',
    },
  );
  try {
    // The headless engine starts with the first API request.
    const models = await fetch(`http://127.0.0.1:${port}/v1/models`);
    expect(models.status).toBe(200);
    await expect
      .poll(cli.output, { timeout: 120_000 })
      .toMatch(
        /lmtab: headless engine's WebGPU adapter: .+ \(shader-f16: (yes|no), maxBufferSize [\d,]+ MiB\); GGUF models run on /,
      );
    const line = cli
      .output()
      .split('\n')
      .find((l) => l.includes("headless engine's WebGPU adapter"));
    test.info().annotations.push({ type: 'adapter line', description: line ?? '' });
    expect(line).toContain('swiftshader');
    expect(line).toContain('GGUF models run on the CPU: the WebGPU adapter');
  } finally {
    expect(await stopCli(cli.child)).toBe(0);
  }
});
