import { resolve } from 'node:path';
import type { Plugin } from 'vite';
import { injectManifest } from 'workbox-build';
import { defineConfig } from 'vitest/config';
import packageJson from './package.json';

// Cross-origin isolation lets WebAssembly use more than one thread (SharedArrayBuffer).
const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Service-Worker-Allowed': '/',
};

/** Largest file precached: wllama.wasm is 8.7 MB, web-llm's bundle about 6 MB (workbox's default is 2 MiB). */
const maxPrecachedBytes = 32 * 1024 * 1024;

/**
 * Writes the precache manifest (every built file with a revision) into `sw.js` once the bundle is
 * on disk, replacing `self.__WB_MANIFEST`. Hashed files under `assets/` are their own revision.
 */
function precacheManifest(): Plugin {
  let outDir = 'dist';
  let log = (message: string) => console.log(message);
  return {
    name: 'lmtab-precache-manifest',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
      log = (message) => config.logger.info(message);
    },
    async closeBundle() {
      const sw = resolve(outDir, 'sw.js');
      const { count, size, warnings } = await injectManifest({
        swSrc: sw,
        swDest: sw,
        globDirectory: outDir,
        globPatterns: ['**/*.{html,js,css,wasm,svg,png,webmanifest,json}'],
        globIgnores: ['**/*.map'],
        dontCacheBustURLsMatching: /^assets\//,
        maximumFileSizeToCacheInBytes: maxPrecachedBytes,
      });
      // A skipped file would silently break offline use: fail the build instead.
      if (warnings.length > 0) throw new Error(`Precache manifest: ${warnings.join('; ')}`);
      log(`precache manifest: ${count} files, ${(size / 1e6).toFixed(1)} MB injected into sw.js`);
    },
  };
}

/**
 * `virtual:web-llm-catalog`: web-llm's prebuilt model list as JSON, so the page lists MLC models
 * without loading web-llm itself (6 MB; only the engine worker needs it).
 */
function webLlmCatalog(): Plugin {
  const id = 'virtual:web-llm-catalog';
  return {
    name: 'lmtab-web-llm-catalog',
    resolveId: (source) => (source === id ? `\0${id}` : undefined),
    async load(resolved) {
      if (resolved !== `\0${id}`) return undefined;
      const { prebuiltAppConfig } = await import('@mlc-ai/web-llm');
      return `export default ${JSON.stringify(prebuiltAppConfig)};`;
    },
  };
}

/** The unit tests (vitest, Node 20). */
const unitTests = [
  'src/**/*.test.ts',
  'sw/**/*.test.ts',
  'tests/unit/**/*.test.ts',
  'bench/*.test.ts',
  'bench/gpu/*.test.ts',
  'wasm/**/*.test.ts',
  'eslint/*.test.ts',
  'soak/*.test.ts',
];

export default defineConfig({
  server: { headers: isolationHeaders },
  preview: { headers: isolationHeaders, port: 1234 },
  worker: { format: 'es' },
  optimizeDeps: { exclude: ['@wllama/wllama'] },
  define: {
    // Tells builds apart (the update banner, tests that deploy one build over another).
    __LMTAB_BUILD__: JSON.stringify(process.env.LMTAB_BUILD_ID ?? packageJson.version),
  },
  plugins: [webLlmCatalog(), precacheManifest()],
  build: {
    target: 'es2022',
    chunkSizeWarningLimit: 8192,
    rollupOptions: {
      input: {
        main: 'index.html',
        sw: 'sw/sw.ts',
        'lmtab-language-model': 'src/prompt-api/script.ts',
        'lmtab-realtime': 'src/realtime/script.ts',
      },
      output: {
        // The service worker must sit at the root to control the whole origin; the script tag
        // forms (the Prompt API, the Realtime client) keep names pages can write.
        entryFileNames: (chunk) =>
          ['sw', 'lmtab-language-model', 'lmtab-realtime'].includes(chunk.name)
            ? `${chunk.name}.js`
            : 'assets/[name]-[hash].js',
      },
    },
  },
  test: {
    include: unitTests,
    environment: 'node',
    // Threads that keep their module cache from file to file: the suite's 170-odd files spent
    // about 130 s of its 183 s importing their modules anew in a fresh process each (68 s now).
    // A test file leaves no global state behind (each starts its own servers and stores).
    pool: 'threads',
    // So no test replaces a module (vi.mock): in the shared cache the module may already be loaded
    // for another file, and the replacement then depends on the order of files. Pass the test's
    // own implementation in instead (createIdbModelStore's `keyval`).
    poolOptions: { threads: { isolate: false } },
    // CI sums unit and browser test counts from these reports.
    reporters: ['default', 'json'],
    outputFile: { json: 'reports/unit.json' },
  },
});
