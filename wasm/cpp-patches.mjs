// Edits to the C++ that lmtab's CPU build compiles, each checked to apply exactly once: to wllama
// 3.8.1's C++ glue (its npm package's cpp/), and to llama.cpp's sources.
// Usage: node wasm/cpp-patches.mjs FROM_DIR TO_DIR (copies the glue, then edits it);
//        node wasm/cpp-patches.mjs --llama-cpp DIR (edits llama.cpp's sources in DIR in place).
//
// The glue's:
// 1. Results as JSON that is always valid UTF-8. The glue serializes each result with dump(),
//    which throws on a string that is not UTF-8 (json type_error 316). A token's text can be a
//    piece of a character (byte-level vocabularies split many characters), and logprobs name
//    tokens, candidates that were not drawn included: such a request failed as "invalid UTF-8 byte
//    at index 1". llama-server sends its results through safe_json_to_str (dump_safe, which
//    replaces such bytes); so does the glue now. The raw bytes stay in each entry's `bytes`.
//
// llama.cpp's:
// 1. Flash attention reads the K and V rows of the next 8 cached positions together, every 8
//    positions. ggml's loop reads one K row and one V row per position (a Q8_0 row of a 64-value
//    head is 68 bytes, and the next position's lie all the heads' rows further on), computes, then
//    goes on to the next. Natively the CPU's out-of-order window holds many such short iterations,
//    and their reads overlap. In WebAssembly an iteration is a few hundred instructions, so the
//    window holds one or two, and each row waited for memory in turn; WebAssembly has no prefetch
//    instruction. The early reads are plain loads of one byte at each end of each row (their sum
//    goes to a volatile, so that no compiler drops them); the results do not change. The bench's
//    native reference builds from its own copy of the sources, without this edit.
import { createHash } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const cppPatches = [
  {
    file: 'wllama-context.h',
    from: 'res.data_json.value = result ? data_json.dump() : "";',
    to: 'res.data_json.value = result ? safe_json_to_str(data_json) : "";',
  },
];

/** Edits to llama.cpp's sources (paths from its root), for the CPU WebAssembly build only. */
export const llamaCppPatches = [
  {
    file: 'ggml/src/ggml-cpu/ops.cpp',
    from: `        for (int64_t ic = ic_start; ic < ic_end; ++ic) {
            const float mv = mp ? slope*GGML_CPU_FP16_TO_FP32(mp[ic]) : 0.0f;`,
    to: `        // lmtab (wasm/cpp-patches.mjs): the next 8 positions' K and V rows read together.
        volatile int lmtab_early_reads;
        const size_t lmtab_k_last = ggml_row_size(k->type, DK) - 1;
        const size_t lmtab_v_last = ggml_row_size(v->type, DV) - 1;
        for (int64_t ic = ic_start; ic < ic_end; ++ic) {
            if ((ic - ic_start) % 8 == 0) {
                int early = 0;
                for (int64_t j = ic == ic_start ? ic : ic + 8; j < ic + 16 && j < ic_end; ++j) {
                    const char * k_row = (const char *) k->data + (j*nbk1 + ik2*nbk2 + ik3*nbk3);
                    const char * v_row = (const char *) v->data + (j*nbv1 + iv2*nbv2 + iv3*nbv3);
                    early += k_row[0] + k_row[lmtab_k_last] + v_row[0] + v_row[lmtab_v_last];
                }
                lmtab_early_reads = early;
            }
            const float mv = mp ? slope*GGML_CPU_FP16_TO_FP32(mp[ic]) : 0.0f;`,
  },
];

/** `source` with `patch` applied, or an error when its text is not there exactly once. */
export function applyCppPatch(source, patch) {
  const at = source.indexOf(patch.from);
  if (at < 0 || source.indexOf(patch.from, at + 1) >= 0) {
    throw new Error(`${patch.file} does not have exactly one \`${patch.from}\``);
  }
  return `${source.slice(0, at)}${patch.to}${source.slice(at + patch.from.length)}`;
}

/** What the build manifest records of a list of edits: the sha256 of their files and texts. */
export function patchesDigest(patches) {
  return createHash('sha256').update(JSON.stringify(patches)).digest('hex');
}

/** Applies each of `patches` to its file under `dir`, in place. */
function applyAll(dir, patches) {
  for (const patch of patches) {
    const path = join(dir, patch.file);
    writeFileSync(path, applyCppPatch(readFileSync(path, 'utf8'), patch));
  }
}

// Run as a script (build.sh), not imported (finish-build.mjs, tests).
const isMain =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
const [from, to] = process.argv.slice(2);
if (isMain && from === '--llama-cpp' && to) {
  applyAll(to, llamaCppPatches);
  console.log(`patched llama.cpp's sources in ${to}`);
} else if (isMain && from && to) {
  cpSync(from, to, { recursive: true });
  applyAll(to, cppPatches);
  console.log(`patched wllama's glue into ${to}`);
}
