// `npm run soak -- --minutes N`: bundles the TypeScript runner with esbuild (packages stay
// external), then runs it. Needs `npm run build` (it runs the built `lmtab serve --headless`).
import { build } from 'esbuild';

await build({
  entryPoints: { 'run-soak': 'soak/run-soak.ts' },
  outdir: 'soak/.cache/runner',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
await import(new URL('./.cache/runner/run-soak.js', import.meta.url).href);
