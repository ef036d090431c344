#!/usr/bin/env bash
# Builds the bench's native reference: llama.cpp's llama-bench from the same sources as lmtab's CPU
# WebAssembly build (wasm/source.env), compiled here with -march=native (GGML_NATIVE) and OpenMP threads.
# Output: bench/.cache/native/build/bin/llama-bench, llama-quantize (makes the Q4_K_M files),
# llama-embedding (the embeddings row's native reference) and bench/.cache/native/info.json.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/wasm/source.env"
OUT="$ROOT/bench/.cache/native"
export OUT
JOBS="${JOBS:-$(nproc)}"
mkdir -p "$OUT"
"$ROOT/wasm/fetch-llama-cpp.sh" "$OUT/llama.cpp"
cmake -S "$OUT/llama.cpp" -B "$OUT/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON \
  -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=ON \
  -DLLAMA_BUILD_SERVER=OFF -DBUILD_SHARED_LIBS=OFF >"$OUT/cmake.log"
nice -n 10 cmake --build "$OUT/build" --target llama-bench llama-quantize llama-embedding -j "$JOBS" >"$OUT/build.log"
flags="$(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2)"
features=()
for f in sse3 ssse3 sse4_1 sse4_2 avx avx2 fma f16c avx512f avx512bw avx512vl avx512_vnni avx512_bf16 avx_vnni amx_tile; do
  [[ " $flags " == *" $f "* ]] && features+=("$f")
done
model="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
cc="$(grep -m1 CMAKE_C_COMPILER: "$OUT/build/CMakeCache.txt" | cut -d= -f2)"
node -e '
const [, src, commit, model, cc, cores, ...features] = process.argv;
require("fs").writeFileSync(process.env.OUT + "/info.json", JSON.stringify({
  source: src, commit, cpu: model, cores: Number(cores), cpuFeatures: features,
  compiler: require("child_process").execFileSync(cc, ["--version"]).toString().split("\n")[0],
  flags: "-DGGML_NATIVE=ON (-march=native), Release, OpenMP",
}, null, 2) + "\n");
' "node-llama-cpp@$NODE_LLAMA_CPP_VERSION" "$LLAMA_CPP_COMMIT" "$model" "$cc" "$(nproc)" "${features[@]}"
echo "native llama-bench: $OUT/build/bin/llama-bench"
