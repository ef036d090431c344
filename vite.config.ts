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

/** Largest file precached: lmtab-cpu.wasm is 13.5 MB, wllama.wasm 10.2 MB (workbox's default is 2 MiB). */
const maxPrecachedBytes = 32 * 1024 * 1024;

/**
 * The engine files that only some devices and models need, stored the first time they are used
 * (sw/on-demand-cache.ts) instead of at install: wllama's stock build (WebGPU, projectors, audio,
 * models over 4 GiB), lmtab's memory64 kernels and web-llm (MLC models). lmtab's CPU build is
 * stored at install, so every stored text model runs offline on any device.
 */
const onDemandPatterns = [
  'assets/wllama-*.wasm',
  'assets/lmtab-kernels64-*.wasm',
  'assets/web-llm-*.js',
];

/**
 * Writes the two file lists into `sw.js` once the bundle is on disk: `self.__WB_MANIFEST` (every
 * built file but the on-demand ones, stored at install) and `self.__LMTAB_ON_DEMAND`. Hashed files
 * under `assets/` are their own revision.
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
      const common = {
        swSrc: sw,
        swDest: sw,
        globDirectory: outDir,
        dontCacheBustURLsMatching: /^assets\//,
        maximumFileSizeToCacheInBytes: maxPrecachedBytes,
      };
      const lists = [
        await injectManifest({
          ...common,
          globPatterns: ['**/*.{html,js,css,wasm,svg,png,webmanifest,json}'],
          globIgnores: ['**/*.map', ...onDemandPatterns],
        }),
        await injectManifest({
          ...common,
          globPatterns: onDemandPatterns,
          injectionPoint: 'self.__LMTAB_ON_DEMAND',
        }),
      ];
      // A skipped file would silently break offline use: fail the build instead.
      const warnings = lists.flatMap((list) => list.warnings);
      if (warnings.length > 0) throw new Error(`Precache manifest: ${warnings.join('; ')}`);
      const [installed, onDemand] = lists.map(
        ({ count, size }) => `${count} files, ${(size / 1e6).toFixed(1)} MB`,
      );
      log(`precache manifest: ${installed} at install, ${onDemand} on first use, in sw.js`);
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

/** The engine worker's chunks: web-llm's as `web-llm-HASH.js`, the others as vite names them. */
function workerChunkName(chunk: { moduleIds: readonly string[] }): string {
  return chunk.moduleIds.some((id) => id.includes('/@mlc-ai/web-llm/'))
    ? 'assets/web-llm-[hash].js'
    : 'assets/[name]-[hash].js';
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
  // web-llm's chunk (the engine worker imports it) by name, for the list of files stored on first use.
  worker: { format: 'es', rollupOptions: { output: { chunkFileNames: workerChunkName } } },
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
