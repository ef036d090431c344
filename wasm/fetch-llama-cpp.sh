#!/usr/bin/env bash
# Unpacks llama.cpp's sources from the llama.cpp git bundle that the node-llama-cpp npm package ships
# (the npm registry is the one source of sources reachable from every machine lmtab builds on).
# Usage: wasm/fetch-llama-cpp.sh DEST_DIR   (idempotent: does nothing when DEST_DIR/.lmtab-source exists)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=wasm/source.env
source "$HERE/source.env"
DEST="${1:?usage: fetch-llama-cpp.sh DEST_DIR}"
if [[ -f "$DEST/.lmtab-source" ]] && grep -q "$LLAMA_CPP_COMMIT" "$DEST/.lmtab-source"; then
  exit 0
fi
rm -rf "$DEST" "$DEST.pack"
mkdir -p "$DEST.pack"
(cd "$DEST.pack" && npm pack --silent "node-llama-cpp@$NODE_LLAMA_CPP_VERSION" >/dev/null && tar xzf ./*.tgz)
git -c advice.detachedHead=false clone --quiet "$DEST.pack/package/llama/gitRelease.bundle" "$DEST"
commit="$(git -C "$DEST" rev-parse HEAD)"
if [[ "$commit" != "$LLAMA_CPP_COMMIT" ]]; then
  echo "node-llama-cpp@$NODE_LLAMA_CPP_VERSION ships llama.cpp $commit, expected $LLAMA_CPP_COMMIT" >&2
  exit 1
fi
echo "node-llama-cpp@$NODE_LLAMA_CPP_VERSION $commit" >"$DEST/.lmtab-source"
rm -rf "$DEST.pack"
