import { cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'vite';

/**
 * Builds the bench page, the app and its service worker into `outDir` with the app's Vite config,
 * and copies node-llama-wasm there unbundled (its worker imports `./index.js` and its wasm files by
 * relative URL). The app's own build (`dist/`) never contains the bench page.
 */
export async function buildBenchPage(root: string, outDir: string): Promise<void> {
  await build({
    configFile: join(root, 'vite.config.ts'),
    logLevel: 'error',
    build: {
      outDir,
      emptyOutDir: true,
      rollupOptions: {
        input: {
          main: join(root, 'index.html'),
          bench: join(root, 'bench/page/index.html'),
          sw: join(root, 'sw/sw.ts'),
        },
      },
    },
  });
  const vendor = join(outDir, 'vendor/node-llama-wasm');
  const source = join(root, 'node_modules/@fugood/node-llama-wasm');
  await mkdir(vendor, { recursive: true });
  for (const file of ['index.js', 'worker.js', 'wasm']) {
    await cp(join(source, file), join(vendor, file), { recursive: true });
  }
}
