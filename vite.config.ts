import { defineConfig } from 'vitest/config';

// Cross-origin isolation lets WebAssembly use more than one thread (SharedArrayBuffer).
const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Service-Worker-Allowed': '/',
};

export default defineConfig({
  server: { headers: isolationHeaders },
  preview: { headers: isolationHeaders, port: 1234 },
  worker: { format: 'es' },
  optimizeDeps: { exclude: ['@wllama/wllama'] },
  build: {
    target: 'es2022',
    chunkSizeWarningLimit: 2048,
    rollupOptions: {
      input: { main: 'index.html', sw: 'sw/sw.ts' },
      output: {
        // The service worker must sit at the root to control the whole origin.
        entryFileNames: (chunk) => (chunk.name === 'sw' ? 'sw.js' : 'assets/[name]-[hash].js'),
      },
    },
  },
  test: {
    include: ['src/**/*.test.ts', 'sw/**/*.test.ts', 'tests/unit/**/*.test.ts', 'bench/*.test.ts'],
    environment: 'node',
    // CI sums unit and browser test counts from these reports.
    reporters: ['default', 'json'],
    outputFile: { json: 'reports/unit.json' },
  },
});
