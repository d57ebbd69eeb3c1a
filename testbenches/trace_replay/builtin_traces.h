// Traces built into the binary, so that a bare `ascend-sim run` has work to do.
#pragma once

#include <string>
#include <vector>

namespace asim {

struct BuiltinTrace {
    std::string name;  // "builtin:llama3-70b-layer"
    std::string description;
    std::string text;  // trace format v1 (JSON Lines)
};

// One Llama-3-70B decoder layer, forward, BF16, batch 1, sequence 4096, as one tensor-parallel
// shard of 8 (die 0), made by the trace generator (testbenches/trace_gen) from
// traces/models/llama3-70b.yaml with collectives and the embedding / LM head left out: the TP
// all-reduces after the attention output and the down projection are collectives that a single
// die cannot run.
BuiltinTrace builtin_llama3_70b_layer();

const std::vector<std::string>& builtin_trace_names();
// Returns the built-in trace called `name`, or throws InputError naming the available ones.
BuiltinTrace builtin_trace(const std::string& name);

constexpr const char* kDefaultTrace = "builtin:llama3-70b-layer";

}  // namespace asim
