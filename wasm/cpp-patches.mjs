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
// 2. Files past 2 GiB. The glue's file reads (wllama-fs.h) took the position from ftell and set
//    it with fseek, whose offsets are a 32-bit long on wasm32: past 2 GiB ftell fails (-1), and
//    every read of a 2.73 GB file's later tensors came back empty. They now use ftello and fseeko
//    (off_t is 64 bits), and the read's JavaScript takes offset, length and destination address as
//    unsigned (emscripten hands a size_t or pointer over as a signed 32-bit number).
// 5. Reads without garbage (fileReadJs, below). wllama's host answers each read with a new
//    ArrayBuffer (a tensor each, up to 142 MB), copied into the heap and then garbage: loading a
//    2.6 GB file left about 1.3 GB of it for V8 to collect, the renderer's peak 1.5 times the file.
//    The read now takes the file's Blob slice and reads it into one reused buffer.
// 3. wllama 3.13's wire format. lmtab's build compiles 3.8.1's glue (npm alias wllama-cpu-glue),
//    which is written against the llama.cpp it builds; 3.13's glue needs llama.cpp b12211, whose
//    sources no reachable registry carries. 3.13's JavaScript (the package lmtab loads) sends and
//    reads a few more fields: load_res's audio capabilities, cmpl_req's is_asr, embd_res's message
//    and gres_res's data_raw; the glue now has them in 3.13's order (the audio actions stay
//    unregistered), and wllama_start names the build's llama.cpp commit.
// 4. llama-server's /tokenize, /detokenize and /apply-template (wasm/glue/token-actions.h): three
//    actions on the loaded model, which neither wllama's glue has. They reuse 3.13's completion
//    request and result messages, since its JavaScript serializes only the messages it knows. And
//    `load_vocab`, `load` with llama.cpp's vocab_only, so that a model running on wllama's stock
//    build (which has no such actions) gets them from this build without its weights.
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
//    const, every nrows in it is 1 on wasm, and lmtab's glue sets nrows to 4 in memory for the dot
//    products that take tiles (wasm/glue-patches.mjs). The compiler may answer a comparison with
//    the table as compiled: with a plain read, an earlier form of edit 3 (`vec_dot_num_rows == 2`)
//    was decided false at compile time and its branch dropped (the engine's code grew by 28 bytes,
//    and a prompt of 511 tokens still ran at the one-row speed).
// 3. mul_mat hands lmtab's kernels (nrows 4) tiles of 4 rows by 4 columns, then of 2 by 2, then
//    single columns. ggml's tiles are 2 by 2 at most, and ggml gives up on them for the whole
//    product when ne11 is odd or a chunk's share of columns is odd (its check keeps a pair of
//    columns from straddling two matrices of a batched product). A tile's rows are prepared once
//    for all its columns, so 4 clients' decode step or a prompt costs less per token in tiles of
//    4; and a prompt of 511 tokens, or a step of 3 clients' tokens, no longer runs every weight
//    through the one-row kernel (511 tokens on Q8_0 and 1 thread: 34.2 tok/s with ggml's rule,
//    49.7 with tiles). This applies to a single matrix (ne12*ne13 == 1), where nothing can
//    straddle; batched products (attention without flash attention) keep ggml's rule, with 2 by 2
//    tiles at most. Each tile size runs where the chunk's rows divide by it.
// 4. mul_mat_one_chunk's buffer of results holds 4 columns of 16 rows (ggml's, 2 columns).
// 6. LFM3's text model (wasm/lfm3/lfm3.cpp, appended to src/models/lfm2.cpp): the sources lmtab
//    builds from predate LFM3, and no package on the npm registry carries newer ones
//    (docs/research/wllama-3.13-and-lfm3.md). The backport follows llama.cpp b12211's definition as
//    compiled into wllama 3.13.0; only the text model (LFM3-VL's vision encoder is new too).
// 5. The CPU buffer type gives at most 1 GiB per buffer, so ggml spreads a model's weights over
//    several buffers (ggml_backend_alloc_ctx_tensors_from_buft splits at a buffer type's max
//    size). With one buffer for all weights, a file over about 2 GiB failed to load
//    ("ggml_aligned_malloc: insufficient memory (attempted to allocate 2604.12 MB)"): on wasm32,
//    emscripten's sbrk takes its increment as a signed 32-bit number, so one allocation above 2 GiB
//    cannot grow the heap, though the 4 GiB address space has room for it in pieces.
import { createHash } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The glue's read of a model file's bytes (glue 2 and 5): it asks wllama's worker host for them as
 * wllama's own read does (`fs.read_req`, the pending promise its `fs.read_res` resolves), with
 * offset, length and destination as unsigned. An answer that is an ArrayBuffer is copied into the
 * heap as wllama copies it. One that is the file's Blob slice (what lmtab's engine sends this build,
 * `src/engine/builds/cpu-build.ts`) is read with a BYOB reader into one scratch buffer that every read
 * reuses, then copied: no new buffer per read, so loading leaves no garbage the size of the model.
 * Written without regular expressions or comments: it is a C macro's argument.
 */
const fileReadJs = [
  'const path = UTF8ToString(Number(path_ptr) >>> 0);',
  "const name = path.startsWith('/models/') ? path.slice(8) : path.startsWith('models/') ? path.slice(7) : path;",
  'const at = Number(offset) >>> 0;',
  'const size = Number(req_size) >>> 0;',
  'const out = Number(out_ptr) >>> 0;',
  'pendingReadPromise = new Promise((resolve, reject) => { pendingReadResolve = resolve; pendingReadReject = reject; });',
  'isAwaitReading = true;',
  "postMessage({ verb: 'fs.read_req', args: [name, at, size] });",
  'let data;',
  'try { data = await pendingReadPromise; } finally { isAwaitReading = false; pendingReadResolve = null; pendingReadReject = null; }',
  'if (!(data instanceof Blob)) { const bytes = new Uint8Array(data); getHeapU8().set(bytes, out); return bytes.length; }',
  'let scratch = globalThis.lmtabReadScratch || new ArrayBuffer(16 << 20);',
  "const reader = data.stream().getReader({ mode: 'byob' });",
  'let written = 0;',
  'try {',
  '  for (;;) {',
  '    const step = await reader.read(new Uint8Array(scratch));',
  '    if (step.value) scratch = step.value.buffer;',
  '    if (step.done) break;',
  '    getHeapU8().set(step.value, out + written);',
  '    written += step.value.byteLength;',
  '  }',
  '} finally { globalThis.lmtabReadScratch = scratch; reader.releaseLock(); }',
  'return written;',
].join('\n  ');

export const cppPatches = [
  {
    file: 'wllama-context.h',
    from: 'res.data_json.value = result ? data_json.dump() : "";',
    to: 'res.data_json.value = result ? safe_json_to_str(data_json) : "";',
  },
  {
    file: 'wllama-fs.h',
    from: 'return await _wllama_js_file_read(UTF8ToString(Number(path_ptr)), Number(offset), Number(req_size), Number(out_ptr));',
    to: fileReadJs,
  },
  {
    file: 'wllama-fs.h',
    from: `    size_t fpos = (size_t)__real_ftell(f);

    // Large reads (>= 1 MB): write directly into ptr, skip cache entirely.
    if (req_bytes >= wllama_fs::CACHE_SIZE)
    {
      size_t actual = (size_t)js_file_read(
          nit->second.c_str(), fpos, req_bytes, ptr);
      if (actual == 0)
        return 0;
      size_t copy_bytes = std::min(req_bytes, actual);
      __real_fseek(f, fpos + copy_bytes, SEEK_SET);`,
    to: `    // lmtab (wasm/cpp-patches.mjs): positions as off_t, 64 bits; long is 32 on wasm32.
    size_t fpos = (size_t)ftello(f);

    // Large reads (>= 1 MB): write directly into ptr, skip cache entirely.
    if (req_bytes >= wllama_fs::CACHE_SIZE)
    {
      size_t actual = (size_t)js_file_read(
          nit->second.c_str(), fpos, req_bytes, ptr);
      if (actual == 0)
        return 0;
      size_t copy_bytes = std::min(req_bytes, actual);
      fseeko(f, (off_t)(fpos + copy_bytes), SEEK_SET);`,
  },
  {
    file: 'wllama-fs.h',
    from: '      __real_fseek(f, fpos + req_bytes, SEEK_SET);',
    to: '      fseeko(f, (off_t)(fpos + req_bytes), SEEK_SET);',
  },
  {
    file: 'wllama-fs.h',
    from: `    memcpy(ptr, wllama_fs::cache_data.data(), copy_bytes);
    __real_fseek(f, fpos + copy_bytes, SEEK_SET);`,
    to: `    memcpy(ptr, wllama_fs::cache_data.data(), copy_bytes);
    fseeko(f, (off_t)(fpos + copy_bytes), SEEK_SET);`,
  },
  // 3. wllama 3.13's wire format (glue 3): the fields 3.13's JavaScript reads and writes, in its order.
  {
    file: 'glue.hpp',
    from: `  GLUE_FIELD(bool, has_audio_input)
};`,
    to: `  GLUE_FIELD(bool, has_audio_input)
  GLUE_FIELD(bool, has_audio_output)
  GLUE_FIELD(bool, has_chat)
  GLUE_FIELD(bool, has_audio_stream)
  GLUE_FIELD(bool, has_live_asr)
  GLUE_FIELD(int, audio_input_rate)
  GLUE_FIELD(int, audio_output_rate)
  GLUE_FIELD(arr_str, audio_voices)
};`,
  },
  {
    file: 'glue.hpp',
    from: `  GLUE_FIELD(bool, is_chat)
  GLUE_FIELD(str, data_json)`,
    to: `  GLUE_FIELD(bool, is_chat)
  GLUE_FIELD(bool, is_asr)
  GLUE_FIELD(str, data_json)`,
  },
  {
    file: 'glue.hpp',
    from: `  GLUE_HANDLER("embd_res")
  GLUE_FIELD(bool, success)
  GLUE_FIELD(int, req_id)`,
    to: `  GLUE_HANDLER("embd_res")
  GLUE_FIELD(bool, success)
  GLUE_FIELD(str, message)
  GLUE_FIELD(int, req_id)`,
  },
  {
    file: 'glue.hpp',
    from: `  GLUE_HANDLER("gres_res")
  GLUE_FIELD(bool, success)
  GLUE_FIELD(bool, has_more)
  GLUE_FIELD(bool, is_error)
  GLUE_FIELD(str, data_json)
};`,
    to: `  GLUE_HANDLER("gres_res")
  GLUE_FIELD(bool, success)
  GLUE_FIELD(bool, has_more)
  GLUE_FIELD(bool, is_error)
  GLUE_FIELD(str, data_json)
  GLUE_FIELD(raw, data_raw)
};`,
  },
  {
    file: 'wllama-context.h',
    from: `    res.has_audio_input.value = server_meta.chat_params.allow_audio;
    return res;`,
    to: `    res.has_audio_input.value = server_meta.chat_params.allow_audio;
    res.has_chat.value = true; // lmtab: this build serves chat for every model it loads
    return res;`,
  },
  {
    file: 'wllama.cpp',
    from: `      printStr(GGML_LOG_LEVEL_INFO, "Using async file read");
    }

    return "{\\"success\\":true}";`,
    to: `      printStr(GGML_LOG_LEVEL_INFO, "Using async file read");
    }

    // lmtab: the llama.cpp commit this build compiles (3.13's JavaScript logs it beside its own).
    return "{\\"success\\":true,\\"version\\":\\"lmtab-cpu-" LMTAB_LLAMA_CPP_COMMIT "\\"}";`,
  },
];

// The glue's token actions (glue edit 4), kept in a file of their own for reading.
const tokenActions = readFileSync(new URL('./glue/token-actions.h', import.meta.url), 'utf8');
cppPatches.push(
  {
    file: 'wllama-context.h',
    from: `    llama_numa_init(params.numa);
    if (!ctx_server.load_model(params))`,
    to: `    llama_numa_init(params.numa);
    if (lmtab_vocab_only)
      return lmtab_load_vocab();
    if (!ctx_server.load_model(params))`,
  },
  {
    file: 'wllama-context.h',
    from: `  }

  glue_msg_get_result_res action_get_result(const char *req_raw)`,
    to: `  }

${tokenActions}  glue_msg_get_result_res action_get_result(const char *req_raw)`,
  },
  {
    file: 'wllama.cpp',
    from: `    WLLAMA_ACTION(systemone)
    WLLAMA_ACTION(get_result)`,
    to: `    WLLAMA_ACTION(systemone)
    WLLAMA_ACTION(load_vocab)
    WLLAMA_ACTION(tokenize)
    WLLAMA_ACTION(detokenize)
    WLLAMA_ACTION(apply_template)
    WLLAMA_ACTION(get_result)`,
  },
);

// The LFM3 text model (edit 6), kept in a file of its own for reading.
const lfm3Source = readFileSync(new URL('./lfm3/lfm3.cpp', import.meta.url), 'utf8');

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
    to: `    // lmtab (wasm/cpp-patches.mjs): read at run time, where the glue may have set it to 4.
    int64_t                  const vec_dot_num_rows     = ((const volatile struct ggml_type_traits_cpu *) type_traits_cpu)[src0->type].nrows;`,
  },
  {
    file: 'ggml/src/ggml-cpu/ggml-cpu.c',
    from: `        int64_t num_rows_per_vec_dot = vec_dot_num_rows;

        // these checks are needed to avoid crossing dim1 boundaries
        // can be optimized, but the logic would become more complicated, so keeping it like this for simplicity
        if ((nr0 % 2 != 0) || (ne11 % 2 != 0) || ((ir0_end - ir0_start) % 2 != 0) || ((ir1_end - ir1_start) % 2 != 0)) {
            num_rows_per_vec_dot = 1;
        }
        ggml_compute_forward_mul_mat_one_chunk(params, dst, src0->type, num_rows_per_vec_dot, ir0_start, ir0_end, ir1_start, ir1_end);`,
    to: `        // lmtab (wasm/cpp-patches.mjs): lmtab's kernels (nrows 4) take tiles of 4 and of 2. One
        // matrix's columns go in tiles of 4, then 2, then 1, each size where the rows divide by it.
        if (vec_dot_num_rows == 4 && ne12 * ne13 == 1) {
            int64_t lmtab_ir1 = ir1_start;
            for (int64_t lmtab_tile = 4; lmtab_tile >= 1; lmtab_tile /= 2) {
                const int64_t lmtab_end = lmtab_ir1 + (ir1_end - lmtab_ir1) / lmtab_tile * lmtab_tile;
                if (lmtab_end > lmtab_ir1 && nr0 % lmtab_tile == 0 && (ir0_end - ir0_start) % lmtab_tile == 0) {
                    ggml_compute_forward_mul_mat_one_chunk(params, dst, src0->type, lmtab_tile, ir0_start, ir0_end, lmtab_ir1, lmtab_end);
                    lmtab_ir1 = lmtab_end;
                }
            }
        } else {
        int64_t num_rows_per_vec_dot = vec_dot_num_rows == 4 ? 2 : vec_dot_num_rows;

        // these checks are needed to avoid crossing dim1 boundaries
        // can be optimized, but the logic would become more complicated, so keeping it like this for simplicity
        if ((nr0 % 2 != 0) || (ne11 % 2 != 0) || ((ir0_end - ir0_start) % 2 != 0) || ((ir1_end - ir1_start) % 2 != 0)) {
            num_rows_per_vec_dot = 1;
        }
        ggml_compute_forward_mul_mat_one_chunk(params, dst, src0->type, num_rows_per_vec_dot, ir0_start, ir0_end, ir1_start, ir1_end);
        }`,
  },
  {
    file: 'ggml/src/ggml-backend.cpp',
    from: `static bool ggml_backend_cpu_buffer_type_is_host(ggml_backend_buffer_type_t buft) {
    return true;

    GGML_UNUSED(buft);
}

ggml_backend_buffer_type_t ggml_backend_cpu_buffer_type(void) {
    static struct ggml_backend_buffer_type ggml_backend_cpu_buffer_type = {
        /* .iface   = */ {
            /* .get_name         = */ ggml_backend_cpu_buffer_type_get_name,
            /* .alloc_buffer     = */ ggml_backend_cpu_buffer_type_alloc_buffer,
            /* .get_alignment    = */ ggml_backend_cpu_buffer_type_get_alignment,
            /* .get_max_size     = */ NULL, // defaults to SIZE_MAX`,
    to: `static bool ggml_backend_cpu_buffer_type_is_host(ggml_backend_buffer_type_t buft) {
    return true;

    GGML_UNUSED(buft);
}

// lmtab (wasm/cpp-patches.mjs): CPU buffers of at most 1 GiB, so weights over 2 GiB are spread over
// several allocations (emscripten's sbrk takes a signed 32-bit increment on wasm32).
static size_t lmtab_cpu_buffer_type_get_max_size(ggml_backend_buffer_type_t buft) {
    return (size_t) 1 << 30;

    GGML_UNUSED(buft);
}

ggml_backend_buffer_type_t ggml_backend_cpu_buffer_type(void) {
    static struct ggml_backend_buffer_type ggml_backend_cpu_buffer_type = {
        /* .iface   = */ {
            /* .get_name         = */ ggml_backend_cpu_buffer_type_get_name,
            /* .alloc_buffer     = */ ggml_backend_cpu_buffer_type_alloc_buffer,
            /* .get_alignment    = */ ggml_backend_cpu_buffer_type_get_alignment,
            /* .get_max_size     = */ lmtab_cpu_buffer_type_get_max_size,`,
  },
  {
    file: 'ggml/src/ggml-cpu/ggml-cpu.c',
    from: `    // 16 * 2, accounting for mmla kernels
    float tmp[32];`,
    to: `    // 16 * 2, accounting for mmla kernels
    // lmtab (wasm/cpp-patches.mjs): 16 * 4, for lmtab's tiles of 4 columns.
    float tmp[64];`,
  },
  // 6. LFM3's text model (wasm/lfm3/lfm3.cpp): the architecture's name, its class, its place among
  //    hybrid models (convolution state plus KV cache) and NeoX RoPE, as llama.cpp b12211 has them.
  {
    file: 'src/llama-arch.h',
    from: `    LLM_ARCH_LFM2MOE,
`,
    to: `    LLM_ARCH_LFM2MOE,
    LLM_ARCH_LFM3, // lmtab (wasm/cpp-patches.mjs)
`,
  },
  {
    file: 'src/llama-arch.cpp',
    from: `    { LLM_ARCH_LFM2MOE,          "lfm2moe"          },
`,
    to: `    { LLM_ARCH_LFM2MOE,          "lfm2moe"          },
    { LLM_ARCH_LFM3,             "lfm3"             },
`,
  },
  {
    file: 'src/llama-arch.cpp',
    from: `        case LLM_ARCH_LFM2MOE:
        case LLM_ARCH_NEMOTRON_H:
`,
    to: `        case LLM_ARCH_LFM2MOE:
        case LLM_ARCH_LFM3:
        case LLM_ARCH_NEMOTRON_H:
`,
  },
  {
    file: 'src/llama-arch.cpp',
    from: `        case LLM_ARCH_LFM2MOE:
        case LLM_ARCH_BAILINGMOE3:
`,
    to: `        case LLM_ARCH_LFM2MOE:
        case LLM_ARCH_LFM3:
        case LLM_ARCH_BAILINGMOE3:
`,
  },
  {
    file: 'src/llama-model.cpp',
    from: `        case LLM_ARCH_LFM2MOE:
            return new llama_model_lfm2moe(params);
`,
    to: `        case LLM_ARCH_LFM2MOE:
            return new llama_model_lfm2moe(params);
        case LLM_ARCH_LFM3:
            return new llama_model_lfm3(params);
`,
  },
  {
    file: 'src/llama-model.cpp',
    from: `        case LLM_ARCH_LFM2MOE:
        case LLM_ARCH_SMALLTHINKER:
`,
    to: `        case LLM_ARCH_LFM2MOE:
        case LLM_ARCH_LFM3:
        case LLM_ARCH_SMALLTHINKER:
`,
  },
  {
    file: 'src/models/models.h',
    from: `    template <bool iswa>
    using graph = llama_model_lfm2::graph<iswa>;

    std::unique_ptr<llm_graph_context> build_arch_graph(const llm_graph_params & params) const override;
};
`,
    to: `    template <bool iswa>
    using graph = llama_model_lfm2::graph<iswa>;

    std::unique_ptr<llm_graph_context> build_arch_graph(const llm_graph_params & params) const override;
};

// lmtab (wasm/cpp-patches.mjs): LFM3's text model, wasm/lfm3/lfm3.cpp.
struct llama_model_lfm3 : public llama_model_base {
    llama_model_lfm3(const struct llama_model_params & params) : llama_model_base(params) {}
    void load_arch_hparams(llama_model_loader & ml) override;
    void load_arch_tensors(llama_model_loader & ml) override;

    struct graph : public llm_graph_context {
        graph(const llama_model & model, const llm_graph_params & params);
    };

    std::unique_ptr<llm_graph_context> build_arch_graph(const llm_graph_params & params) const override;
};
`,
  },
  {
    file: 'src/models/lfm2.cpp',
    from: `template struct llama_model_lfm2::graph<false>;
`,
    to: `template struct llama_model_lfm2::graph<false>;

${lfm3Source}`,
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
