// lmtab: stand-in for wllama's "decision model" (systemone) server files, which live only in
// wllama's own llama.cpp fork, not in the upstream llama.cpp sources lmtab builds from. It declares
// what wllama's C++ glue refers to; no model is ever a decision model here, so the glue's systemone
// action answers "This model is not a decision model" and nothing below is reached. lmtab does not
// use systemone.
#pragma once

#include "server-task.h"

#include <stdexcept>
#include <string>
#include <vector>

enum common_decision_type {
    COMMON_DECISION_TYPE_NONE,
};

// never posted: the systemone action throws before building a task
static constexpr server_task_type SERVER_TASK_TYPE_DECISION = SERVER_TASK_TYPE_COMPLETION;

struct server_decision_question {
    std::string id;
};

struct server_decision_context {
    common_decision_type type = COMMON_DECISION_TYPE_NONE;

    void init(const llama_model *) {}

    [[noreturn]] static void unsupported() {
        throw std::runtime_error("decision models are not supported by lmtab's CPU build");
    }
    std::vector<server_decision_question> parse_questions(const json &) { unsupported(); }
    json parse_state(const json &, std::vector<raw_buffer> &) { unsupported(); }
    size_t n_variants(const server_decision_question &) { unsupported(); }
    template <typename... A> void fill_task(A &&...) { unsupported(); }
    bool can_share_prompt() { unsupported(); }
    json format_answer(const server_decision_question &, const std::vector<std::vector<float>> &) {
        unsupported();
    }
};

inline std::vector<server_task> server_decision_group_tasks(std::vector<server_task> tasks, int) {
    return tasks;
}

struct server_task_result_decision : server_task_result {
    int index = 0;
    std::vector<float> scores;
    int32_t n_tokens = 0;
    json to_json() override { return json::object(); }
};
