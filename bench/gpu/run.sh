#!/usr/bin/env bash
# lmtab's GPU bench, the one script of the bundle `npm run bench:gpu -- --pack` writes. Needs Linux
# x86-64 with glibc 2.34 or newer, Python 3, a Vulkan driver (NVIDIA's is found at its container and
# standard paths) and no network. Writes LFM2-shaped models into models/ and at most 8 files into
# results/ (or --out DIR): native Vulkan llama-bench (prompt 512, decode 128; the dry run 32, 8),
# lmtab's engine on wllama's stock WebGPU build in Node 24 + Dawn with NVIDIA's f16 toggle, once
# more without it (the CPU fallback), and a summary.
# Usage: ./run.sh [--dry-run] [--out DIR]    (--dry-run: the tiny models, as CI runs it on lavapipe)
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DRY=0
OUT="$HERE/results"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dry-run) DRY=1 ;;
    --out) OUT="$2"; shift ;;
    *) echo "usage: ./run.sh [--dry-run] [--out DIR]" >&2; exit 2 ;;
  esac
  shift
done
start=$SECONDS
failed=()
step() { echo "== $* ($((SECONDS - start)) s)"; }

python3 "$HERE/unpack.py" || exit 1
NODE="$HERE/bin/node"

# The Vulkan driver: the caller's choice, else NVIDIA's (container paths first), else the loader's
# own search of the standard ICD folders.
if [[ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ]]; then
  for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json \
    /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json; do
    if [[ -f "$icd" ]]; then export VK_DRIVER_FILES="$icd" VK_ICD_FILENAMES="$icd"; break; fi
  done
fi
if [[ -z "${__EGL_VENDOR_LIBRARY_FILENAMES:-}" ]]; then
  for egl in /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json \
    /usr/share/glvnd/egl_vendor.d/10_nvidia.json; do
    if [[ -f "$egl" ]]; then export __EGL_VENDOR_LIBRARY_FILENAMES="$egl"; break; fi
  done
fi
for dir in /usr/local/nvidia/lib64 /usr/local/nvidia/lib; do
  [[ -d "$dir" ]] && LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$dir"
done
# The bundle's Vulkan loader and GL libraries, only those the system lacks (unpack.py chose them).
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$HERE/lib/fallback"
echo "Vulkan driver: ${VK_DRIVER_FILES:-${VK_ICD_FILENAMES:-the standard ICD folders}}"

mkdir -p "$OUT" "$HERE/models"
rm -f "$OUT"/*
"$NODE" "$HERE/tool.mjs" system --out "$OUT/system.json" $([[ $DRY == 1 ]] && echo --dry-run) ||
  failed+=(system)

# The dry run proves that every step runs, not speeds: lavapipe is slow and its figures mean
# nothing, so it measures once, on short prompts and answers (prompt 512 and decode 128 on lavapipe
# took 722 s of native llama-bench alone).
if [[ $DRY == 1 ]]; then
  specs=(tiny:Q4_K_M tiny:Q8_0)
  REPS=1
  PROMPT=32
  DECODE=8
else
  specs=(350M:Q4_K_M 350M:Q8_0 1.2B:Q4_K_M 1.2B:Q8_0)
  REPS=3
  PROMPT=512
  DECODE=128
fi
step "writing ${#specs[@]} models (each with every core)"
models=()
for spec in "${specs[@]}"; do
  size="${spec%%:*}"
  type="${spec##*:}"
  file="$HERE/models/lfm2-${size,,}-${type,,}.gguf"
  models+=("$file")
  "$NODE" "$HERE/tool.mjs" write-model --size "$size" --type "$type" --out "$file" ||
    failed+=(write-model)
done

step "native Vulkan llama-bench"
# llama.cpp's Vulkan backend skips CPU devices unless named: the dry run's lavapipe is one.
[[ $DRY == 1 ]] && export GGML_VK_VISIBLE_DEVICES=0
bench_args=()
for file in "${models[@]}"; do bench_args+=(-m "$file"); done
"$HERE/native/llama-bench" "${bench_args[@]}" -p "$PROMPT" -n "$DECODE" -r "$REPS" -ngl 99 -o json \
  >"$OUT/native-vulkan.json" 2>"$OUT/native-vulkan.log" || failed+=(native-vulkan)
grep -m1 'ggml_vulkan: 0 = ' "$OUT/native-vulkan.log" || true

list="$(IFS=,; echo "${models[*]}")"
step "lmtab WebGPU in Node + Dawn, with vulkan_enable_f16_on_nvidia"
"$NODE" "$HERE/tool.mjs" webgpu --models "$list" --out "$OUT/webgpu-f16-toggle.json" \
  --dawn-flags backend=vulkan,enable-dawn-features=vulkan_enable_f16_on_nvidia \
  --prompt "$PROMPT" --decode "$DECODE" --reps "$REPS" ||
  failed+=(webgpu)

# Without the toggle NVIDIA's driver shows Dawn no shader-f16 and lmtab falls back to the CPU: a short
# run on the first model shows it. The dry run's lavapipe has shader-f16 anyway, so it is hidden there.
step "lmtab WebGPU in Node + Dawn, without the toggle"
"$NODE" "$HERE/tool.mjs" webgpu --models "${models[0]}" --out "$OUT/webgpu-no-toggle.json" \
  --dawn-flags backend=vulkan --prompt "$((PROMPT < 64 ? PROMPT : 64))" --decode "$((DECODE < 16 ? DECODE : 16))" --reps 1 \
  $([[ $DRY == 1 ]] && echo --hide-features shader-f16) || failed+=(webgpu-no-toggle)

step "summary"
"$NODE" "$HERE/tool.mjs" summarize --dir "$OUT" --seconds $((SECONDS - start)) || failed+=(summary)
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "failed steps: ${failed[*]} (see $OUT)" >&2
  exit 1
fi
echo "results in $OUT ($((SECONDS - start)) s); copy the folder back and fold it in with: npm run bench:gpu -- --fold DIR"
