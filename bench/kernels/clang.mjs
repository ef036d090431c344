// Builds a kernel bench's C file with Debian's clang-19 (apt-get install clang-19 lld-19;
// wasm/kernels/build.sh installs them) and the engine's kernels' code flags, for the
// bench/kernels/run-*.mjs scripts that time relaxed-SIMD code.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', '.cache', 'kernels');
const llvm = '/usr/lib/llvm-19/bin';

/** Compiles `source` (a file in bench/kernels) to wasm32 without libc; returns the module's bytes. */
export function buildWithClang(source) {
  mkdirSync(join(out, 'bin'), { recursive: true });
  // clang looks for wasm-ld-19 on PATH; PATH holds nothing else, so that clang does not run
  // Debian's older wasm-opt (binaryen), which rejects relaxed SIMD.
  if (!existsSync(join(out, 'bin', 'wasm-ld-19')))
    symlinkSync(join(llvm, 'wasm-ld'), join(out, 'bin', 'wasm-ld-19'));
  // The engine's kernels' code flags (from the manifest), without the shared memory the engine
  // needs.
  const manifest = JSON.parse(
    readFileSync(join(here, '..', '..', 'wasm', 'prebuilt', 'manifest.json'), 'utf8'),
  );
  const flags = manifest.kernels.flags.filter(
    (flag) => !['-matomics', '-mbulk-memory'].includes(flag),
  );
  const wasm = join(out, source.replace(/\.c$/, '.wasm'));
  execFileSync(
    join(llvm, 'clang'),
    [
      ...['--target=wasm32', ...flags, '-nostdlib', '-Wl,--no-entry'],
      ...[join(here, source), '-o', wasm],
    ],
    { stdio: 'inherit', env: { PATH: join(out, 'bin') } },
  );
  return readFileSync(wasm);
}
