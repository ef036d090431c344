// Puts lmtab's kernels (wasm/kernels/, built by wasm/kernels/build.sh) into the committed CPU build:
// finds ggml's Q4_K and Q6_K slots in lmtab-cpu.wasm, writes the glue that installs the kernels
// there (wasm/glue-patches.mjs), and records the kernels, their slots and every file's sha256 in
// manifest.json. Usage: node wasm/install-kernels.mjs PREBUILT_DIR KERNELS_WASM COMPILER
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withKernels } from './glue-patches.mjs';
import { findKernelSlots } from './kernel-table.mjs';
import { countSimdOpcodes } from './simd-opcodes.mjs';

const [dir, kernelsPath, compiler] = process.argv.slice(2);
if (!dir || !kernelsPath || !compiler) {
  throw new Error('usage: node wasm/install-kernels.mjs PREBUILT_DIR KERNELS_WASM COMPILER');
}
const kernels = readFileSync(kernelsPath);
const slots = findKernelSlots(readFileSync(join(dir, 'lmtab-cpu.wasm')));
const exportSlots = { lmtab_vec_dot_q4_K_q8_K: slots.q4_K, lmtab_vec_dot_q6_K_q8_K: slots.q6_K };
const glue = withKernels(readFileSync(join(dir, 'lmtab-cpu.js'), 'utf8'), kernels, exportSlots);
writeFileSync(join(dir, 'lmtab-cpu.js'), glue);
writeFileSync(join(dir, 'lmtab-kernels.wasm'), kernels);

const manifestPath = join(dir, 'manifest.json');
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
manifest.kernels = {
  source: 'wasm/kernels/k-quants.c',
  compiler,
  flags: ['-O3', '-msimd128', '-mrelaxed-simd', '-matomics', '-mbulk-memory'],
  slots: exportSlots,
  simdOpcodes: countSimdOpcodes(kernels),
};
for (const name of ['lmtab-cpu.js', 'lmtab-cpu.wasm', 'lmtab-kernels.wasm']) {
  const bytes = readFileSync(join(dir, name));
  manifest.files[name] = {
    bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
}
writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`installed lmtab's kernels in ${dir}: slots ${JSON.stringify(exportSlots)}`);
