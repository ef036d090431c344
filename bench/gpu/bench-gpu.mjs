// `npm run bench:gpu -- --pack | --dry-run | --fold DIR`: bundles the TypeScript CLI (bench/gpu/main.ts)
// with esbuild (packages stay external), then runs it. See bench/gpu/README.md.
import { build } from 'esbuild';

const outfile = 'bench/.cache/gpu/runner/main.js';
await build({
  entryPoints: ['bench/gpu/main.ts'],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
await import(new URL('../.cache/gpu/runner/main.js', import.meta.url).href);
