// `npm run bench`: bundles the TypeScript runner with esbuild (packages stay external), then runs it.
import { build } from 'esbuild';

const outdir = 'bench/.cache/runner';
await build({
  entryPoints: { 'run-bench': 'bench/run-bench.ts', 'native-child': 'bench/native-child.ts' },
  outdir,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
await import(new URL('./.cache/runner/run-bench.js', import.meta.url).href);
