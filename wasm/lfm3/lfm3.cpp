// lmtab (wasm/cpp-patches.mjs appends this to llama.cpp's src/models/lfm2.cpp): LFM3's text model,
// backported to the llama.cpp of lmtab's CPU build, which predates it. Written from llama.cpp
// b12211's definition as compiled into wllama 3.13.0 (docs/research/wllama-3.13-and-lfm3.md): the
// hybrid of LFM2's short convolutions and attention, where attention layers follow a per-layer
// sliding-window pattern (their own RoPE base; full layers take rope_freqs factors), each head's
// output is scaled by a sigmoid gate, optional post-norms follow attention and feed-forward, and the
// final norm is `output_norm`.

void llama_model_lfm3::load_arch_hparams(llama_model_loader & ml) {
    ml.get_key(LLM_KV_SHORTCONV_L_CACHE,           hparams.n_shortconv_l_cache);
    ml.get_key(LLM_KV_ATTENTION_LAYERNORM_RMS_EPS, hparams.f_norm_rms_eps);

    for (uint32_t il = 0; il < hparams.n_layer(); ++il) {
        hparams.is_recr_impl[il] = hparams.n_head_kv(il) == 0;
    }

    ml.get_arr(LLM_KV_ATTENTION_SLIDING_WINDOW_PATTERN, hparams.is_swa_impl);
    ml.get_key(LLM_KV_ATTENTION_SLIDING_WINDOW,         hparams.n_swa);
    hparams.rope_freq_base_train_swa  = hparams.rope_freq_base_train;
    hparams.rope_freq_scale_train_swa = hparams.rope_freq_scale_train;
    ml.get_key(LLM_KV_ROPE_FREQ_BASE_SWA, hparams.rope_freq_base_train_swa);

    bool any_swa = false;
    for (uint32_t il = 0; il < hparams.n_layer(); ++il) {
        if (hparams.is_recr_impl[il]) {
            hparams.is_swa_impl[il] = 0;
        }
        any_swa = any_swa || hparams.is_swa_impl[il];
    }
    if (!any_swa || hparams.n_swa == 0) {
        throw std::runtime_error("LFM3 requires sliding window attention layers");
    }
    hparams.swa_type = LLAMA_SWA_TYPE_STANDARD;

    switch (hparams.n_ff()) {
        case 7680: type = LLM_TYPE_1_7B; break;
        default:   type = LLM_TYPE_UNKNOWN;
    }
}

void llama_model_lfm3::load_arch_tensors(llama_model_loader &) {
    LLAMA_LOAD_LOCALS;

    tok_embd = create_tensor(tn(LLM_TENSOR_TOKEN_EMBD, "weight"), {n_embd, n_vocab}, 0);

    output_norm = create_tensor(tn(LLM_TENSOR_OUTPUT_NORM, "weight"), {n_embd}, 0);
    output      = create_tensor(tn(LLM_TENSOR_OUTPUT,      "weight"), {n_embd, n_vocab}, TENSOR_NOT_REQUIRED);
    if (output == NULL) {
        output = create_tensor(tn(LLM_TENSOR_TOKEN_EMBD, "weight"), {n_embd, n_vocab}, TENSOR_DUPLICATED);
    }

    const int64_t n_embd_q = n_embd_head_k * n_head;
    bool rope_freqs_made = false;

    for (int i = 0; i < n_layer; ++i) {
        auto & layer = layers[i];

        layer.attn_norm = create_tensor(tn(LLM_TENSOR_ATTN_NORM, "weight", i), {n_embd}, 0);
        layer.ffn_norm  = create_tensor(tn(LLM_TENSOR_FFN_NORM,  "weight", i), {n_embd}, 0);

        layer.attn_post_norm = create_tensor(tn(LLM_TENSOR_ATTN_POST_NORM, "weight", i), {n_embd}, TENSOR_NOT_REQUIRED);
        layer.ffn_post_norm  = create_tensor(tn(LLM_TENSOR_FFN_POST_NORM,  "weight", i), {n_embd}, TENSOR_NOT_REQUIRED);
        if ((layer.attn_post_norm == nullptr) != (layer.ffn_post_norm == nullptr)) {
            throw std::runtime_error("LFM3 requires both post norms or neither");
        }

        layer.ffn_gate = create_tensor(tn(LLM_TENSOR_FFN_GATE, "weight", i), {n_embd,   n_ff}, 0);
        layer.ffn_down = create_tensor(tn(LLM_TENSOR_FFN_DOWN, "weight", i), {  n_ff, n_embd}, 0);
        layer.ffn_up   = create_tensor(tn(LLM_TENSOR_FFN_UP,   "weight", i), {n_embd,   n_ff}, 0);

        if (!hparams.is_recr(i)) {
            if (hparams.n_embd_k_gqa(i) != hparams.n_embd_v_gqa(i)) {
                throw std::runtime_error("LFM3 requires equal key and value sizes");
            }
            layer.attn_q_norm = create_tensor(tn(LLM_TENSOR_ATTN_Q_NORM, "weight", i), {n_embd_head_k}, 0);
            layer.attn_k_norm = create_tensor(tn(LLM_TENSOR_ATTN_K_NORM, "weight", i), {n_embd_head_k}, 0);

            create_tensor_qkv(layer, i, n_embd, n_embd_q, hparams.n_embd_k_gqa(i), hparams.n_embd_v_gqa(i), 0);

            layer.wo        = create_tensor(tn(LLM_TENSOR_ATTN_OUT,  "weight", i), {n_embd_q, n_embd}, 0);
            layer.wqkv_gate = create_tensor(tn(LLM_TENSOR_ATTN_GATE, "weight", i), {n_embd,   n_head}, 0);

            if (!hparams.is_swa(i)) {
                layer.rope_freqs = create_tensor(tn(LLM_TENSOR_ROPE_FREQS, "weight", i), {n_embd_head_k/2},
                        rope_freqs_made ? TENSOR_DUPLICATED : 0);
                rope_freqs_made = true;
            }
        } else {
            layer.shortconv.conv     = create_tensor(tn(LLM_TENSOR_SHORTCONV_CONV,    "weight", i), {hparams.n_shortconv_l_cache, n_embd}, 0);
            layer.shortconv.in_proj  = create_tensor(tn(LLM_TENSOR_SHORTCONV_INPROJ,  "weight", i), {n_embd, 3 * n_embd}, 0);
            layer.shortconv.out_proj = create_tensor(tn(LLM_TENSOR_SHORTCONV_OUTPROJ, "weight", i), {n_embd, n_embd}, 0);
        }
    }
}

std::unique_ptr<llm_graph_context> llama_model_lfm3::build_arch_graph(const llm_graph_params & params) const {
    return std::make_unique<graph>(*this, params);
}

llama_model_lfm3::graph::graph(const llama_model & model, const llm_graph_params & params) :
    llm_graph_context(params) {
    auto build_attn_block = [&model, this](ggml_tensor * cur, ggml_tensor * inp_pos,
                                           llm_graph_input_attn_kv_iswa * inp_attn, int il) -> ggml_tensor * {
        const auto & layer       = model.layers[il];
        const auto   n_embd_head = hparams.n_embd_head_v(il);
        const auto   n_head_kv   = hparams.n_head_kv(il);

        auto [q, k, v] = build_qkv(layer, cur, n_embd_head, n_head, n_head_kv, il);

        q = build_norm(q, layer.attn_q_norm, NULL, LLM_NORM_RMS, il);
        cb(q, "model.layers.{}.self_attn.q_layernorm", il);
        k = build_norm(k, layer.attn_k_norm, NULL, LLM_NORM_RMS, il);
        cb(k, "model.layers.{}.self_attn.k_layernorm", il);

        // Sliding-window layers use their own RoPE base; full layers take rope_freqs factors.
        const float   freq_base_l  = model.get_rope_freq_base (cparams, il);
        const float   freq_scale_l = model.get_rope_freq_scale(cparams, il);
        ggml_tensor * factors      = model.get_rope_factors(cparams, il);
        q = ggml_rope_ext(ctx0, q, inp_pos, factors, n_rot, rope_type, n_ctx_orig, freq_base_l, freq_scale_l,
                          ext_factor, attn_factor, beta_fast, beta_slow);
        k = ggml_rope_ext(ctx0, k, inp_pos, factors, n_rot, rope_type, n_ctx_orig, freq_base_l, freq_scale_l,
                          ext_factor, attn_factor, beta_fast, beta_slow);

        ggml_tensor * out = build_attn(inp_attn, nullptr, nullptr, nullptr,
                q, k, v, nullptr, nullptr, nullptr, 1.0f / sqrtf(float(n_embd_head)), il);

        // One sigmoid gate per head, from the block's input.
        ggml_tensor * gate = build_lora_mm(layer.wqkv_gate, cur);
        gate = ggml_sigmoid(ctx0, ggml_reshape_3d(ctx0, gate, 1, n_head, n_tokens));
        cb(gate, "model.layers.{}.self_attn.gate", il);
        out = ggml_reshape_3d(ctx0, ggml_cont(ctx0, out), n_embd_head, n_head, n_tokens);
        out = ggml_mul(ctx0, out, gate);
        out = build_lora_mm(layer.wo, ggml_cont_2d(ctx0, out, n_embd_head * n_head, n_tokens), layer.wo_s);
        cb(out, "model.layers.{}.self_attn.out_proj", il);
        return out;
    };
    auto build_shortconv_block = [&model, this](ggml_tensor * cur, llm_graph_input_rs * inp_recr,
                                                int il) -> ggml_tensor * {
        const auto * mctx_cur = static_cast<const llama_memory_hybrid_iswa_context *>(mctx)->get_recr();
        const uint32_t kv_head      = mctx_cur->get_head();
        const int64_t  n_seq_tokens = ubatch.n_seq_tokens;
        const int64_t  n_seqs       = ubatch.n_seqs;
        GGML_ASSERT(n_seqs != 0);
        GGML_ASSERT(ubatch.equal_seqs());
        GGML_ASSERT(ubatch.n_tokens == n_seq_tokens * n_seqs);
        GGML_ASSERT(hparams.n_shortconv_l_cache > 1);
        const uint32_t d_conv = hparams.n_shortconv_l_cache - 1;

        cur = ggml_reshape_3d(ctx0, cur, cur->ne[0], n_seq_tokens, n_seqs);
        auto * bcx = build_lora_mm(model.layers[il].shortconv.in_proj, cur);
        cb(bcx, "model.layers.{}.conv.in_proj", il);

        const auto chunk_size = bcx->ne[0] / 3;
        auto * b = ggml_view_3d(ctx0, bcx, chunk_size, bcx->ne[1], bcx->ne[2], bcx->nb[1], bcx->nb[2], 0);
        auto * c = ggml_view_3d(ctx0, bcx, chunk_size, bcx->ne[1], bcx->ne[2], bcx->nb[1], bcx->nb[2],
                                1 * chunk_size * ggml_element_size(bcx));
        auto * x = ggml_view_3d(ctx0, bcx, chunk_size, bcx->ne[1], bcx->ne[2], bcx->nb[1], bcx->nb[2],
                                2 * chunk_size * ggml_element_size(bcx));
        auto * bx = ggml_transpose(ctx0, ggml_mul(ctx0, b, x));

        auto * conv_state = mctx_cur->get_r_l(il);
        auto * conv_rs    = build_rs(inp_recr, conv_state, hparams.n_embd_r(), n_seqs);
        auto * conv       = ggml_reshape_3d(ctx0, conv_rs, d_conv, hparams.n_embd, n_seqs);
        bx = ggml_concat(ctx0, conv, bx, 0);
        GGML_ASSERT(bx->ne[0] > conv->ne[0]);

        // Conv states: slot 0 the final state, slot s the state s tokens back, as LFM2's block.
        const int64_t K         = cparams.n_rs_seq > 0 ? (int64_t) cparams.n_rs_seq + 1 : 1;
        const int64_t n_written = std::min<int64_t>(n_seq_tokens, K);
        const auto    mem_size  = mctx_cur->get_size();
        const size_t  row_size  = ggml_row_size(conv_state->type, (int64_t) d_conv * n_embd);
        for (int64_t slot = 0; slot < n_written; ++slot) {
            auto * conv_snap = ggml_view_3d(ctx0, bx, d_conv, bx->ne[1], bx->ne[2], bx->nb[1], bx->nb[2],
                                            (bx->ne[0] - d_conv - slot) * ggml_element_size(bx));
            ggml_build_forward_expand(gf, ggml_cpy(ctx0, conv_snap,
                                                   ggml_view_2d(ctx0, conv_state, (int64_t) d_conv * n_embd, n_seqs,
                                                                conv_state->nb[1],
                                                                ((size_t) slot * mem_size + kv_head) * row_size)));
        }

        auto * conv_out = ggml_ssm_conv(ctx0, bx, model.layers[il].shortconv.conv);
        cb(conv_out, "model.layers.{}.conv.conv", il);
        auto * y = ggml_mul(ctx0, c, conv_out);
        y = build_lora_mm(model.layers[il].shortconv.out_proj, y);
        cb(y, "model.layers.{}.conv.out_proj", il);
        return ggml_reshape_2d(ctx0, y, y->ne[0], n_seq_tokens * n_seqs);
    };

    ggml_tensor * cur = build_inp_embd(model.tok_embd);
    cb(cur, "model.embed_tokens", -1);
    ggml_build_forward_expand(gf, cur);

    auto * inp_hybrid  = build_inp_mem_hybrid_iswa();
    auto * inp_pos     = build_inp_pos();
    auto * inp_out_ids = build_inp_out_ids();

    for (int il = 0; il < n_layer; ++il) {
        res->t_layer_inp[il] = cur;
        const auto & layer = model.layers[il];

        auto * prev_cur = cur;
        cur = build_norm(cur, layer.attn_norm, NULL, LLM_NORM_RMS, il);
        cb(cur, "model.layers.{}.operator_norm", il);

        cur = hparams.is_recr(il) ? build_shortconv_block(cur, inp_hybrid->get_recr(), il)
                                  : build_attn_block(cur, inp_pos, inp_hybrid->get_attn(), il);
        if (layer.attn_post_norm) {
            cur = build_norm(cur, layer.attn_post_norm, NULL, LLM_NORM_RMS, il);
            cb(cur, "model.layers.{}.post_operator_norm", il);
        }

        if (il == n_layer - 1 && inp_out_ids) {
            cur      = ggml_get_rows(ctx0, cur, inp_out_ids);
            prev_cur = ggml_get_rows(ctx0, prev_cur, inp_out_ids);
        }
        cur = ggml_add(ctx0, prev_cur, cur);

        auto * ffn_in = build_norm(cur, layer.ffn_norm, NULL, LLM_NORM_RMS, il);
        cb(ffn_in, "model.layers.{}.ffn_norm", il);
        ggml_tensor * ffn_out = build_ffn(ffn_in,
                layer.ffn_up, NULL, NULL,
                layer.ffn_gate, NULL, NULL,
                layer.ffn_down, NULL, NULL,
                NULL, LLM_FFN_SILU, LLM_FFN_PAR, il);
        if (layer.ffn_post_norm) {
            ffn_out = build_norm(ffn_out, layer.ffn_post_norm, NULL, LLM_NORM_RMS, il);
            cb(ffn_out, "model.layers.{}.post_ffn_norm", il);
        }
        cur = ggml_add(ctx0, cur, ffn_out);

        cur = build_cvec(cur, il);
        cb(cur, "l_out", il);
    }

    cur = build_norm(cur, model.output_norm, NULL, LLM_NORM_RMS, -1);
    cb(cur, "result_norm", -1);
    res->t_embd = cur;

    cur = build_lora_mm(model.output, cur, model.output_s);
    cb(cur, "result_output", -1);
    res->t_logits = cur;

    ggml_build_forward_expand(gf, cur);
}
