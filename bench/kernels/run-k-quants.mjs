// node bench/kernels/run-k-quants.mjs: compiles k-quants.c with Debian's clang-19 (apt-get install
// clang-19 lld-19; wasm/kernels/build.sh installs them) and times each kernel in Chromium (the V8
// that runs lmtab's engine): rows of 1,024 values against one activation row, over 64 MiB of weights
// (beyond the caches, as in decode) and over 1 MiB of them 64 times (in L2: the kernel's compute
// alone); medians of 11 passes after one warm-up.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withKernelPage } from './page.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', '.cache', 'kernels');
const llvm = '/usr/lib/llvm-19/bin';
mkdirSync(join(out, 'bin'), { recursive: true });
// clang looks for wasm-ld-19 on PATH; PATH holds nothing else, so that clang does not run Debian's
// older wasm-opt (binaryen), which rejects relaxed SIMD.
if (!existsSync(join(out, 'bin', 'wasm-ld-19')))
  symlinkSync(join(llvm, 'wasm-ld'), join(out, 'bin', 'wasm-ld-19'));
// The engine's kernels' code flags (from the manifest), without the shared memory the engine needs.
const manifest = JSON.parse(
  readFileSync(join(here, '..', '..', 'wasm', 'prebuilt', 'manifest.json'), 'utf8'),
);
const flags = manifest.kernels.flags.filter(
  (flag) => !['-matomics', '-mbulk-memory'].includes(flag),
);
execFileSync(
  join(llvm, 'clang'),
  [
    ...['--target=wasm32', ...flags, '-nostdlib', '-Wl,--no-entry'],
    ...[join(here, 'k-quants.c'), '-o', join(out, 'k-quants.wasm')],
  ],
  { stdio: 'inherit', env: { PATH: join(out, 'bin') } },
);
const files = {
  '/': ['text/html', '<!doctype html>'],
  '/k-quants.wasm': ['application/wasm', readFileSync(join(out, 'k-quants.wasm'))],
};
await withKernelPage(files, async (page) => {
  const rows = await page.evaluate(async () => {
    const wasm = (await WebAssembly.instantiateStreaming(fetch('/k-quants.wasm'))).instance.exports;
    const result = [];
    for (const [type, label, bytesPerRow] of [
      [0, 'Q4_K', 576],
      [1, 'Q6_K', 840],
    ]) {
      const shapes = ['ggml', 'simd128', 'lmtab (relaxed SIMD)', 'dot-add'];
      for (const [repeats, span] of [
        [1, '64 MiB'],
        [64, '1 MiB'],
      ]) {
        for (const [shape, name] of shapes.entries()) {
          const count = wasm.prepare(type, 1024);
          const which = type * shapes.length + shape;
          const rows = count / repeats;
          const ms = [];
          let sum;
          for (let pass = 0; pass < 12; pass++) {
            const start = performance.now();
            sum = 0;
            for (let r = 0; r < repeats && sum !== -1; r++) sum = wasm.run(which, 1024, rows);
            if (pass > 0) ms.push(performance.now() - start);
          }
          if (sum === -1) continue;
          ms.sort((a, b) => a - b);
          result.push({
            label,
            span,
            shape: name,
            ms: ms[5],
            gbPerS: (count * bytesPerRow) / ms[5] / 1e6,
            sum,
          });
        }
      }
    }
    return result;
  });
  console.log('| weights | working set | kernel | ms | weights GB/s | checksum |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const row of rows) {
    console.log(
      `| ${row.label} | ${row.span} | ${row.shape} | ${row.ms.toFixed(1)} | ${row.gbPerS.toFixed(2)} | ${row.sum.toPrecision(8)} |`,
    );
  }
});
