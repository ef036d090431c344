#!/usr/bin/env bash
# npm run build:wasm: rebuilds lmtab's CPU WebAssembly engine (wasm/prebuilt/) from scratch with only apt
# and npm: Debian's emscripten, llama.cpp from the node-llama-cpp npm package (wasm/source.env),
# wllama 3.8.1's C++ glue from node_modules/wllama-cpu-glue/cpp. Writes wasm/prebuilt/manifest.json.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/wasm/source.env"
CACHE="$ROOT/wasm/.cache"
JOBS="${JOBS:-$(nproc)}"
EMSCRIPTEN_WANTED=3.1.6
# Debian's emscripten runs its JS tools with the system node and finds acorn (Debian's node-acorn)
# under /usr/share/nodejs, which a NodeSource or nvm node does not search.
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"

if ! command -v emcc >/dev/null; then
  echo "emcc not found: installing Debian's emscripten package" >&2
  if [[ "$(id -u)" == 0 ]]; then apt-get update -qq && apt-get install -y -qq emscripten cmake; else
    sudo apt-get update -qq && sudo apt-get install -y -qq emscripten cmake; fi
fi
em_version="$(emcc --version | sed -nE '1s/.* ([0-9]+\.[0-9]+\.[0-9]+).*/\1/p')"
if [[ "$em_version" != "$EMSCRIPTEN_WANTED" ]]; then
  echo "warning: emscripten $em_version, the committed build used $EMSCRIPTEN_WANTED" >&2
fi

for pkg in "wllama-cpu-glue:$WLLAMA_GLUE_VERSION" "@wllama/wllama:$WLLAMA_VERSION"; do
  have="$(node -p 'require(process.argv[1]).version' "$ROOT/node_modules/${pkg%%:*}/package.json")"
  if [[ "$have" != "${pkg##*:}" ]]; then
    echo "node_modules has ${pkg%%:*} $have, wasm/source.env expects ${pkg##*:}" >&2
    exit 1
  fi
done

mkdir -p "$CACHE"
"$ROOT/wasm/fetch-llama-cpp.sh" "$CACHE/llama.cpp"
# llama.cpp's sources as fetched (an earlier build left its edits in them), then lmtab's edits.
git -C "$CACHE/llama.cpp" checkout --quiet -- .
node "$ROOT/wasm/cpp-patches.mjs" --llama-cpp "$CACHE/llama.cpp"
[[ "${KEEP_BUILD:-}" == 1 ]] || rm -rf "$CACHE/build"
# wllama's glue with lmtab's edits (wasm/cpp-patches.mjs).
rm -rf "$CACHE/wllama-cpp"
node "$ROOT/wasm/cpp-patches.mjs" "$ROOT/node_modules/wllama-cpu-glue/cpp" "$CACHE/wllama-cpp"
emcmake cmake -S "$ROOT/wasm" -B "$CACHE/build" -DCMAKE_BUILD_TYPE=Release \
  -DEMSCRIPTEN_SYSTEM_PROCESSOR=wasm \
  -DLLAMA_CPP_DIR="$CACHE/llama.cpp" \
  -DWLLAMA_CPP_DIR="$CACHE/wllama-cpp" \
  -DLMTAB_LLAMA_CPP_COMMIT="$LLAMA_CPP_COMMIT" >"$CACHE/cmake.log"
nice -n 10 cmake --build "$CACHE/build" --target wllama -j "$JOBS" 2>&1 | tee "$CACHE/build.log" | grep -E "error|\[ *[0-9]+%\] Linking" || true
[[ -f "$CACHE/build/wllama.wasm" ]] || { echo "build failed, see $CACHE/build.log" >&2; exit 1; }
node "$ROOT/wasm/finish-build.mjs" "$CACHE/build" "$ROOT/wasm/prebuilt" "$em_version"
# lmtab's relaxed-SIMD kernels, installed in the glue just written (wasm/kernels/build.sh).
"$ROOT/wasm/kernels/build.sh"
