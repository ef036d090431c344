#!/usr/bin/env bash
# Optional, after run.sh: builds a native CUDA llama-bench from the bundle's llama.cpp sources (the
# same commit as the Vulkan one; needs CUDA's nvcc, cmake and g++ there, about 4 to 7 minutes on 16
# cores), runs it on run.sh's models and adds results/native-cuda.json to the summary.
# Usage: ./build-cuda.sh [--out DIR]   (CUDA_ARCH: the GPU's architecture, default "native")
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="$HERE/results"
[[ "${1:-}" == "--out" ]] && OUT="$2"
python3 "$HERE/unpack.py"
SRC="$HERE/src/llama.cpp"
BUILD="$HERE/build-cuda"
command -v nvcc >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]] || {
  echo "build-cuda.sh needs CUDA's nvcc (PATH or /usr/local/cuda/bin)" >&2
  exit 1
}
export PATH="$PATH:/usr/local/cuda/bin"
cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGGML_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-native}" -DGGML_NATIVE=ON -DBUILD_SHARED_LIBS=OFF \
  -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
  -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_APP=OFF -DGGML_CCACHE=OFF \
  >"$BUILD.cmake.log"
cmake --build "$BUILD" --target llama-bench -j "$(nproc)" >"$BUILD.log"
args=()
for file in "$HERE"/models/lfm2-*.gguf; do args+=(-m "$file"); done
"$BUILD/bin/llama-bench" "${args[@]}" -p 512 -n 128 -r 3 -ngl 99 -o json >"$OUT/native-cuda.json"
"$HERE/bin/node" "$HERE/tool.mjs" summarize --dir "$OUT"
