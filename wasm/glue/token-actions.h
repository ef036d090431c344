  // lmtab (wasm/cpp-patches.mjs, glue edit 4): llama-server's /tokenize, /detokenize and
  // /apply-template for the loaded model, answered as llama-server's routes answer them (its
  // tokenize_mixed, tokens_to_str and oaicompat_chat_params_parse). wllama 3.13's JavaScript knows
  // no message of their own, so each action takes a completion request (cmpl_req, whose data_json
  // is the route's body) and answers at once with a result (gres_res, has_more false), whose
  // data_json is the answer or, with is_error, {"message": why}. Nothing here throws past the
  // action: a throwing action returns no output, which wllama's worker reads as a broken buffer.
  // Token texts travel as byte arrays, since a token can be part of a character; the page decodes.
  //
  // A model that runs on wllama's stock build (WebGPU, or past 4 GiB) gets its token routes from
  // this build too: `load_vocab` loads only the file's vocabulary and chat template (llama.cpp's
  // vocab_only: no weights, no context), with the load request's settings read as `load` reads
  // them, and answers as `load` does. The chat parameters are those server_context::load_model makes.

  bool lmtab_vocab_only = false;
  llama_model_ptr lmtab_vocab_model;
  std::unique_ptr<server_chat_params> lmtab_chat_params;

  glue_msg_load_res action_load_vocab(const char *req_raw)
  {
    lmtab_vocab_only = true;
    return action_load(req_raw);
  }

  glue_msg_load_res lmtab_load_vocab()
  {
    glue_msg_load_res res;
    llama_model_params mparams = common_model_params_to_llama(params);
    mparams.vocab_only = true;
    lmtab_vocab_model.reset(llama_model_load_from_file(params.model.path.c_str(), mparams));
    if (!lmtab_vocab_model)
    {
      res.success.value = false;
      return res;
    }
    model = lmtab_vocab_model.get();
    vocab = llama_model_get_vocab(model);
    auto tmpls = common_chat_templates_init(model, params.chat_template);
    const bool thinks = params.use_jinja && common_chat_templates_support_enable_thinking(tmpls.get());
    lmtab_chat_params.reset(new server_chat_params{
        params.use_jinja,
        params.prefill_assistant,
        params.reasoning_format,
        params.default_template_kwargs,
        std::move(tmpls),
        /* allow_image */ false,
        /* allow_audio */ false,
        /* allow_video */ false,
        /* enable_thinking */ params.enable_reasoning != 0 && thinks,
        params.sampling.reasoning_budget_tokens,
        params.sampling.reasoning_budget_message,
        params.media_path,
        params.force_pure_content_parser,
    });
    LOG_INF("%s", "lmtab: vocabulary loaded (vocab_only)\n");

    auto metadata = dump_metadata();
    std::vector<llama_token> list_tokens_eog;
    const int n_vocab = llama_vocab_n_tokens(vocab);
    for (int i = 0; i < n_vocab; i++)
    {
      if (llama_vocab_is_eog(vocab, i))
        list_tokens_eog.push_back(i);
    }
    res.success.value = true;
    res.n_ctx.value = 0;
    res.n_batch.value = 0;
    res.n_ubatch.value = 0;
    res.n_vocab.value = n_vocab;
    res.n_ctx_train.value = llama_model_n_ctx_train(model);
    res.n_embd.value = llama_model_n_embd(model);
    res.n_layer.value = llama_model_n_layer(model);
    res.metadata_key.arr = metadata.keys;
    res.metadata_val.arr = metadata.vals;
    res.token_bos.value = llama_vocab_bos(vocab);
    res.token_eos.value = llama_vocab_eos(vocab);
    res.token_eot.value = llama_vocab_eot(vocab);
    res.list_tokens_eog.arr = std::move(list_tokens_eog);
    res.add_bos_token.value = llama_vocab_get_add_bos(vocab) == 1;
    res.add_eos_token.value = llama_vocab_get_add_eos(vocab) == 1;
    res.has_encoder.value = llama_model_has_encoder(model);
    res.token_decoder_start.value = llama_model_decoder_start_token(model);
    res.media_marker.value = get_media_marker();
    res.has_image_input.value = false;
    res.has_audio_input.value = false;
    res.has_chat.value = true;
    return res;
  }

  const server_chat_params &lmtab_chat() const
  {
    if (meta)
      return meta->chat_params;
    if (lmtab_chat_params)
      return *lmtab_chat_params;
    throw std::runtime_error("no model is loaded");
  }

  glue_msg_get_result_res lmtab_answer(const std::string &req_json, const std::function<json(json &)> &answer)
  {
    glue_msg_get_result_res res;
    res.success.value = true;
    res.has_more.value = false;
    try
    {
      json body = json::parse(req_json);
      res.data_json.value = safe_json_to_str(answer(body));
      res.is_error.value = false;
    }
    catch (const std::exception &e)
    {
      res.data_json.value = safe_json_to_str(json{{"message", e.what()}});
      res.is_error.value = true;
    }
    return res;
  }

  static json lmtab_bytes(const std::string &text)
  {
    json bytes = json::array();
    for (unsigned char c : text)
      bytes.push_back(static_cast<int>(c));
    return bytes;
  }

  void lmtab_check_tokens(const llama_tokens &tokens)
  {
    const int n_vocab = llama_vocab_n_tokens(vocab);
    for (const llama_token token : tokens)
    {
      if (token < 0 || token >= n_vocab)
        throw std::invalid_argument("token " + std::to_string(token) + " is not in the vocabulary: expected ids from 0 to " + std::to_string(n_vocab - 1));
    }
  }

  glue_msg_get_result_res action_tokenize(const char *req_raw)
  {
    PARSE_REQ(glue_msg_completion_req);
    return lmtab_answer(req.data_json.value, [this](json &body)
                        {
      const bool add_special = json_value(body, "add_special", false);
      const bool parse_special = json_value(body, "parse_special", true);
      const llama_tokens tokens = tokenize_mixed(vocab, body.at("content"), add_special, parse_special);
      lmtab_check_tokens(tokens);
      json pieces = json::array();
      if (json_value(body, "with_pieces", false))
      {
        for (const llama_token token : tokens)
          pieces.push_back(lmtab_bytes(common_token_to_piece(vocab, token)));
      }
      return json{{"tokens", tokens}, {"pieces", pieces}}; });
  }

  glue_msg_get_result_res action_detokenize(const char *req_raw)
  {
    PARSE_REQ(glue_msg_completion_req);
    return lmtab_answer(req.data_json.value, [this](json &body)
                        {
      const llama_tokens tokens = body.at("tokens").get<llama_tokens>();
      lmtab_check_tokens(tokens);
      return json{{"content", lmtab_bytes(tokens_to_str(vocab, tokens))}}; });
  }

  glue_msg_get_result_res action_apply_template(const char *req_raw)
  {
    PARSE_REQ(glue_msg_completion_req);
    return lmtab_answer(req.data_json.value, [this](json &body)
                        {
      std::vector<raw_buffer> files; // images become the media marker; their bytes are not needed
      json data = oaicompat_chat_params_parse(body, lmtab_chat(), files);
      return json{{"prompt", std::move(data.at("prompt"))}}; });
  }
  // lmtab: the end of the token actions.
