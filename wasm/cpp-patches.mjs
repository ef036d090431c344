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
// 2. mul_mat reads a type's nrows from type_traits_cpu through a volatile pointer. The table is
//    const, every nrows in it is 1 on wasm, and lmtab's glue sets nrows to 2 in memory for the dot
//    products that take tiles (wasm/glue-patches.mjs). The compiler may answer a comparison with
//    the table as compiled: with a plain read, edit 3's `vec_dot_num_rows == 2` was decided false
//    at compile time and its branch dropped (the engine's code grew by 28 bytes, and a prompt of 511
//    tokens still ran at the one-row speed). ggml's own code passes the value on as read.
// 3. mul_mat hands the dot product 2-by-2 tiles when src1 has an odd number of columns too. ggml
//    gives up on tiles for the whole product when ne11 is odd or a chunk's share of columns is odd
//    (its check keeps a pair of columns from straddling two matrices of a batched product). So a
//    prompt of 511 tokens, or a step of 3 clients' tokens, ran every weight through the one-row
//    kernel (a 511-token prompt at 34.2 tok/s on Q8_0 and 1 thread, against 49.7 now; Q4_K_M 57.8
//    against 66.7). For a single matrix (ne12*ne13 == 1) no pair can straddle anything: the even
//    part of a chunk's columns now goes in tiles and its last column alone. Batched products
//    (attention without flash attention) keep ggml's rule.
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
  {
    file: 'ggml/src/ggml-cpu/ggml-cpu.c',
    from: `    int64_t                  const vec_dot_num_rows     = type_traits_cpu[src0->type].nrows;`,
    to: `    // lmtab (wasm/cpp-patches.mjs): read at run time, where the glue may have set it to 2.
    int64_t                  const vec_dot_num_rows     = ((const volatile struct ggml_type_traits_cpu *) type_traits_cpu)[src0->type].nrows;`,
  },
  {
    file: 'ggml/src/ggml-cpu/ggml-cpu.c',
    from: `            num_rows_per_vec_dot = 1;
        }
        ggml_compute_forward_mul_mat_one_chunk(params, dst, src0->type, num_rows_per_vec_dot, ir0_start, ir0_end, ir1_start, ir1_end);`,
    to: `            num_rows_per_vec_dot = 1;
        }
        // lmtab (wasm/cpp-patches.mjs): one matrix's odd column count, its even part in tiles.
        int64_t lmtab_ir1_rows_start = ir1_start;
        const int64_t lmtab_ir1_pairs_end = ir1_start + ((ir1_end - ir1_start) & ~(int64_t) 1);
        if (num_rows_per_vec_dot == 1 && vec_dot_num_rows == 2 && ne12 * ne13 == 1 && nr0 % 2 == 0 &&
            (ir0_end - ir0_start) % 2 == 0 && lmtab_ir1_pairs_end > ir1_start) {
            ggml_compute_forward_mul_mat_one_chunk(params, dst, src0->type, 2, ir0_start, ir0_end, ir1_start, lmtab_ir1_pairs_end);
            lmtab_ir1_rows_start = lmtab_ir1_pairs_end;
        }
        ggml_compute_forward_mul_mat_one_chunk(params, dst, src0->type, num_rows_per_vec_dot, ir0_start, ir0_end, lmtab_ir1_rows_start, ir1_end);`,
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
