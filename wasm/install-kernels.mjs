// Puts lmtab's kernels (wasm/kernels/, built by wasm/kernels/build.sh) into the committed CPU build:
// finds ggml's Q8_0, Q4_K and Q6_K slots in lmtab-cpu.wasm, writes the glue that installs the kernels
// there (wasm/glue-patches.mjs), and records the kernels, their compiler and flags, their slots and
// every file's sha256 in manifest.json. The wasm64 kernels (for wllama's memory64 build, installed
// at load by src/engine/builds/memory64-kernels.ts) are written beside them and recorded.
// Usage: node wasm/install-kernels.mjs PREBUILT_DIR KERNELS_WASM KERNELS64_WASM COMPILER FLAG...
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withKernels } from './glue-patches.mjs';
import { findKernels } from './kernel-table.mjs';
import { countSimdOpcodes } from './simd-opcodes.mjs';

const [dir, kernelsPath, kernels64Path, compiler, ...flags] = process.argv.slice(2);
if (!dir || !kernelsPath || !kernels64Path || !compiler || flags.length === 0) {
  throw new Error(
    'usage: node wasm/install-kernels.mjs PREBUILT_DIR KERNELS_WASM KERNELS64_WASM COMPILER FLAG...',
  );
}
const kernels = readFileSync(kernelsPath);
const { slots, entries, f16Table } = findKernels(readFileSync(join(dir, 'lmtab-cpu.wasm')));
const exportSlots = {
  lmtab_vec_dot_q8_0_q8_0: slots.q8_0,
  lmtab_vec_dot_q4_K_q8_K: slots.q4_K,
  lmtab_vec_dot_q6_K_q8_K: slots.q6_K,
  lmtab_dequantize_row_q8_0: slots.q8_0ToFloat,
};
// The dot products that take tiles of 4 by 4 and 2 by 2 (wasm/kernels/k-quants.c, VEC_DOT_K).
const tiles = {
  lmtab_vec_dot_q8_0_q8_0: entries.q8_0,
  lmtab_vec_dot_q4_K_q8_K: entries.q4_K,
  lmtab_vec_dot_q6_K_q8_K: entries.q6_K,
};
const glue = withKernels(
  readFileSync(join(dir, 'lmtab-cpu.js'), 'utf8'),
  kernels,
  exportSlots,
  tiles,
);
writeFileSync(join(dir, 'lmtab-cpu.js'), glue);
writeFileSync(join(dir, 'lmtab-kernels.wasm'), kernels);
const kernels64 = readFileSync(kernels64Path);
writeFileSync(join(dir, 'lmtab-kernels64.wasm'), kernels64);

const manifestPath = join(dir, 'manifest.json');
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
manifest.kernels = {
  source: 'wasm/kernels/k-quants.c',
  compiler,
  flags,
  slots: exportSlots,
  tiles,
  // The address of ggml's table of halves, compiled into the Q8_0 kernel (build.sh).
  f16Table,
  simdOpcodes: countSimdOpcodes(kernels),
  // The same source for wasm64 (--target=wasm64, no f16 table: it converts halves itself).
  memory64: { target: 'wasm64', simdOpcodes: countSimdOpcodes(kernels64) },
};
for (const name of [
  'lmtab-cpu.js',
  'lmtab-cpu.wasm',
  'lmtab-kernels.wasm',
  'lmtab-kernels64.wasm',
]) {
  const bytes = readFileSync(join(dir, name));
  manifest.files[name] = {
    bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
}
writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`installed lmtab's kernels in ${dir}: slots ${JSON.stringify(exportSlots)}`);
