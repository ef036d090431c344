// node bench/kernels/run-q8_0-tiles.mjs: compiles q8_0-tiles.c with Debian's clang-19 (clang.mjs)
// and times lmtab's Q8_0 dot product for 4 tokens at once in Chromium, one row at a time, in ggml's
// 2-by-2 tiles and in the engine's tiles of 4 rows by 4 tokens; medians of 24 passes of 40 runs
// each after one warm-up, and how many products differ from the 2-by-2 tile's in any bit.
import { buildWithClang } from './clang.mjs';
import { withKernelPage } from './page.mjs';

const files = {
  '/': ['text/html', '<!doctype html>'],
  '/q8_0-tiles.wasm': ['application/wasm', buildWithClang('q8_0-tiles.c')],
};
await withKernelPage(files, async (page) => {
  const rows = await page.evaluate(async () => {
    const wasm = (await WebAssembly.instantiateStreaming(fetch('/q8_0-tiles.wasm'))).instance
      .exports;
    wasm.prepare();
    const shapes = ['rows', '2x2', '4x4'];
    const ms = shapes.map(() => []);
    // The shapes take turns, so that a slower stretch of the machine falls on all of them.
    for (let pass = 0; pass < 25; pass++) {
      for (const shape of shapes.keys()) {
        const start = performance.now();
        for (let run = 0; run < 40; run++) wasm.run(shape);
        if (pass > 0) ms[shape].push(performance.now() - start);
      }
    }
    return shapes.map((name, shape) => {
      const sorted = ms[shape].sort((a, b) => a - b);
      return { name, ms: sorted[12], differences: wasm.differences(shape) };
    });
  });
  const tile = rows[1].ms;
  console.log('| shape | ms for 40 runs | against 2x2 | products that differ from 2x2 |');
  console.log('| --- | --- | --- | --- |');
  for (const row of rows) {
    console.log(
      `| ${row.name} | ${row.ms.toFixed(1)} | ${(tile / row.ms).toFixed(2)}x | ${row.differences} of 4,096 |`,
    );
  }
});
