// node bench/kernels/run-k-quants.mjs: compiles k-quants.c with Debian's clang-19 (clang.mjs)
// and times each kernel in Chromium (the V8 that runs lmtab's engine): rows of 1,024 values
// against one activation row, over 64 MiB of weights (beyond the caches, as in decode) and over
// 1 MiB of them 64 times (in L2: the kernel's compute alone); medians of 11 passes after one
// warm-up.
import { buildWithClang } from './clang.mjs';
import { withKernelPage } from './page.mjs';

const files = {
  '/': ['text/html', '<!doctype html>'],
  '/k-quants.wasm': ['application/wasm', buildWithClang('k-quants.c')],
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
