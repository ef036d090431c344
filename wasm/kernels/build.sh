#!/usr/bin/env bash
# Builds lmtab's relaxed-SIMD kernels (k-quants.c) with Debian's clang-19 and installs them in the
# committed CPU build (wasm/install-kernels.mjs). Part of `npm run build:wasm`; runs alone in seconds.
# Emscripten 3.1.6's clang 14 cannot emit relaxed SIMD; Debian bookworm's clang-19 can, and the
# kernels need no C library, so they are a module of their own on the engine's memory.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
LLVM=/usr/lib/llvm-19/bin
if [[ ! -x "$LLVM/clang" || ! -x "$LLVM/wasm-ld" ]]; then
  echo "clang-19 or lld-19 not found: installing Debian's packages" >&2
  if [[ "$(id -u)" == 0 ]]; then apt-get update -qq && apt-get install -y -qq clang-19 lld-19; else
    sudo apt-get update -qq && sudo apt-get install -y -qq clang-19 lld-19; fi
fi
OUT="$ROOT/wasm/.cache/kernels"
mkdir -p "$OUT/bin"
# clang runs wasm-ld-19 from PATH, and wasm-opt when PATH has one: Debian's binaryen is too old for
# relaxed SIMD, so PATH holds the linker alone.
ln -sf "$LLVM/wasm-ld" "$OUT/bin/wasm-ld-19"
# The code flags, recorded in the manifest (the kernel bench compiles with them too). Without loop
# strength reduction (-disable-lsr) clang keeps each load's constant offset in the load itself,
# which V8 folds into the address; with it, every load first adds its offset to a pointer.
FLAGS=(-O3 -msimd128 -mrelaxed-simd -matomics -mbulk-memory -mllvm -disable-lsr)
# The Q8_0 kernel reads ggml's table of halves at its address in this engine build.
F16_TABLE="$(node --input-type=module -e "
import { readFileSync } from 'node:fs';
import { findKernels } from '$ROOT/wasm/kernel-table.mjs';
console.log(findKernels(readFileSync('$ROOT/wasm/prebuilt/lmtab-cpu.wasm')).f16Table);")"
PATH="$OUT/bin" "$LLVM/clang" --target=wasm32 "${FLAGS[@]}" -DLMTAB_F16_TABLE="$F16_TABLE" \
  -nostdlib -Wl,--no-entry -Wl,--import-memory -Wl,--shared-memory -Wl,--max-memory=4294967296 \
  -Wl,--strip-all -o "$OUT/lmtab-kernels.wasm" "$ROOT/wasm/kernels/k-quants.c"
# The same kernels for wllama's stock memory64 build (wasm64, 64-bit pointers, on its shared
# 64-bit memory of up to 16 GiB), which runs the models the wasm32 build cannot hold
# (src/engine/builds/memory64-kernels.ts). Without LMTAB_F16_TABLE: that build's ggml is not this one.
PATH="$OUT/bin" "$LLVM/clang" --target=wasm64 "${FLAGS[@]}" \
  -nostdlib -Wl,--no-entry -Wl,--import-memory -Wl,--shared-memory -Wl,--max-memory=17179869184 \
  -Wl,--strip-all -o "$OUT/lmtab-kernels64.wasm" "$ROOT/wasm/kernels/k-quants.c"
# The kernels run on the engine's memory: they must touch no stack, globals or data of their own.
for name in lmtab-kernels lmtab-kernels64; do
  listing="$("$LLVM/llvm-objdump" -d -h "$OUT/$name.wasm")"
  if grep -qE "global\.(get|set)|\bcall\b|memory\.(init|grow)|^ *[0-9]+ (DATA|START) " <<<"$listing"; then
    echo "$name.wasm uses a global, a call, data or a start function; see k-quants.c's rules" >&2
    exit 1
  fi
done
compiler="$("$LLVM/clang" --version | head -1)"
node "$ROOT/wasm/install-kernels.mjs" "$ROOT/wasm/prebuilt" "$OUT/lmtab-kernels.wasm" \
  "$OUT/lmtab-kernels64.wasm" "$compiler" "${FLAGS[@]}"
