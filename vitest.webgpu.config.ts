import { defineConfig } from 'vitest/config';

// `npm run test:webgpu`: lmtab's engine on wllama's stock WebGPU build, in Node 24 with Dawn on
// Mesa's lavapipe (tests/webgpu/README.md). Run through tests/support/webgpu/ensure-webgpu.mjs,
// which installs Node 24, Dawn and lavapipe and starts this under them.
export default defineConfig({
  test: {
    include: ['tests/webgpu/**/*.test.ts'],
    environment: 'node',
    // One engine at a time: two cores, and the suite measures a CPU reference beside the GPU run.
    pool: 'forks',
    fileParallelism: false,
    // lavapipe runs the shaders on the CPU: an answer of a few seconds alone took over 30 s beside
    // a browser suite on the two cores.
    testTimeout: 90_000,
    hookTimeout: 300_000,
    // CI sums every suite's counts from these reports (.ci/run).
    reporters: ['default', 'json'],
    outputFile: { json: 'reports/webgpu.json' },
  },
});
