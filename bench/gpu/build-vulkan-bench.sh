#!/usr/bin/env bash
# Builds the GPU bundle's native reference: llama.cpp's llama-bench from the same sources as lmtab's
# CPU build and the bench's CPU reference (wasm/source.env), linked against the prebuilt Vulkan
# libraries of the npm package @node-llama-cpp/linux-x64-vulkan (same node-llama-cpp release, so
# the same llama.cpp), so no Vulkan SDK or shader compiler is needed here. The libraries load their
# backends (Vulkan, and a CPU one per x86 level) from beside the binary at run time.
# Output: OUT/{llama-bench,lib*.so,info.json}, OUT the first argument (default bench/.cache/gpu/vulkan;
# the packer passes the machine cache's). Built again only when its stamp (the pins, the flags and
# this script) changes. Usage: bench/gpu/build-vulkan-bench.sh [OUT]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/wasm/source.env"
SRC="$ROOT/bench/.cache/native/llama.cpp"
OUT="${1:-$ROOT/bench/.cache/gpu/vulkan}"
FLAGS=(-O2 -DNDEBUG -std=c++17)
stamp="node-llama-cpp@$NODE_LLAMA_CPP_VERSION $LLAMA_CPP_COMMIT ${FLAGS[*]} $(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16)"
if [[ -x "$OUT/llama-bench" && "$(cat "$OUT/.built" 2>/dev/null)" == "$stamp" ]]; then
  exit 0
fi
"$ROOT/wasm/fetch-llama-cpp.sh" "$SRC"
rm -rf "$OUT" "$OUT.partial"
mkdir -p "$OUT.partial/pack"
(cd "$OUT.partial/pack" && npm pack --silent "@node-llama-cpp/linux-x64-vulkan@$NODE_LLAMA_CPP_VERSION" >/dev/null && tar xzf ./*.tgz)
bins="$OUT.partial/pack/package/bins/linux-x64-vulkan"
cp "$bins"/*.so "$bins/_nlcBuildMetadata.json" "$OUT.partial/"
cp "$OUT.partial/pack/package/LICENSE" "$OUT.partial/LICENSE.node-llama-cpp"
rm -rf "$OUT.partial/pack"
# llama-bench alone (its two files): common's code (argument parsing, the fit and the build info) is in the package's
# libllama-common.so. $ORIGIN: the libraries are found beside the binary wherever it is unpacked.
nice -n 10 g++ "${FLAGS[@]}" -o "$OUT.partial/llama-bench" "$SRC/tools/llama-bench/llama-bench.cpp" "$SRC/tools/llama-bench/main.cpp" \
  -I "$SRC/include" -I "$SRC/ggml/include" -I "$SRC/common" -I "$SRC/vendor" \
  -L "$OUT.partial" -l:libllama-common.so -l:libllama.vulkan.v0.5.0.so \
  -l:libggml.vulkan.v0.5.0.so -l:libggml-base.so -Wl,-rpath,'$ORIGIN' -pthread
strip "$OUT.partial/llama-bench"
cat >"$OUT.partial/info.json" <<JSON
{
  "source": "npm node-llama-cpp@$NODE_LLAMA_CPP_VERSION llama/gitRelease.bundle",
  "commit": "$LLAMA_CPP_COMMIT",
  "libraries": "npm @node-llama-cpp/linux-x64-vulkan@$NODE_LLAMA_CPP_VERSION (prebuilt, GGML_BACKEND_DL)",
  "compiler": "$(g++ --version | head -1)",
  "flags": "g++ ${FLAGS[*]}, tools/llama-bench/{llama-bench,main}.cpp only"
}
JSON
echo "$stamp" >"$OUT.partial/.built"
mv "$OUT.partial" "$OUT"
echo "Vulkan llama-bench: $OUT/llama-bench"
