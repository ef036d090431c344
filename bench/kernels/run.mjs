// node bench/kernels/run.mjs: compiles q8_0-dot.c with Debian's emscripten and times its kernel shapes
// in Chromium (the V8 that runs lmtab's engine). Decode: 65,536 rows of 1,024 (71 MB of Q8_0, more
// than the caches) by one token; batch: 4,096 rows by 64 tokens. Medians of 5 passes.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withKernelPage } from './page.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', '.cache', 'kernels');
mkdirSync(out, { recursive: true });
execFileSync(
  'emcc',
  [
    ...['-O3', '-msimd128', join(here, 'q8_0-dot.c'), '-o', join(out, 'q8_0-dot.js')],
    ...['-sALLOW_MEMORY_GROWTH=1', '-sMAXIMUM_MEMORY=2GB', '-sEXPORTED_FUNCTIONS=_run,_malloc'],
  ],
  { stdio: 'inherit', env: { ...process.env, NODE_PATH: '/usr/share/nodejs' } },
);
const files = {
  '/': ['text/html', '<!doctype html><script src="/q8_0-dot.js"></script>'],
  '/q8_0-dot.js': ['text/javascript', readFileSync(join(out, 'q8_0-dot.js'))],
  '/q8_0-dot.wasm': ['application/wasm', readFileSync(join(out, 'q8_0-dot.wasm'))],
};
await withKernelPage(files, async (page) => {
  await page.waitForFunction(() => globalThis.Module?.calledRun === true);
  const rows = await page.evaluate(() => {
    const { Module } = globalThis;
    const checksum = Module._malloc(8);
    const time = (shape, n, rows, tokens) => {
      const ms = [];
      let sum;
      for (let pass = 0; pass < 6; pass++) {
        const took = Module._run(shape, n, rows, tokens, 1, checksum);
        sum = Module.HEAPF64[checksum / 8];
        if (pass > 0) ms.push(took);
      }
      ms.sort((a, b) => a - b);
      return { ms: ms[2], sum };
    };
    const result = [];
    for (const [label, rows, tokens, shapes] of [
      ['decode', 65536, 1, [1, 2, 4]],
      ['batch of 64', 4096, 64, [1, 22]],
    ]) {
      for (const shape of shapes) {
        const { ms, sum } = time(shape, 1024, rows, tokens);
        const bytes = rows * 32 * 34 * (tokens === 1 ? 1 : tokens);
        result.push({ label, shape, ms, gbPerS: bytes / ms / 1e6, sum });
      }
    }
    return result;
  });
  console.log('| work | kernel | ms | weights GB/s (each token counted) | checksum |');
  console.log('| --- | --- | --- | --- | --- |');
  const names = { 1: "ggml's (1 row)", 2: '2 rows', 4: '4 rows', 22: '2x2 tile' };
  for (const row of rows) {
    console.log(
      `| ${row.label} | ${names[row.shape]} | ${row.ms.toFixed(1)} | ${row.gbPerS.toFixed(2)} | ${row.sum.toFixed(0)} |`,
    );
  }
});
