#include "testbenches/trace_replay/builtin_traces.h"

#include <sstream>

#include "models/common/errors.h"
#include "testbenches/trace_gen/generator.h"

namespace asim {

BuiltinTrace builtin_llama3_70b_layer() {
    // The generator's output for die 0 of `ascend-sim trace gen --model llama3-70b
    // --phase prefill --batch 1 --seq 4096 --tp 8 --layers 1 --no-embedding --no-collectives`.
    tracegen::GenOptions o;
    o.phase = tracegen::Phase::kPrefill;
    o.batch = 1;
    o.seq = 4096;
    o.tp = 8;
    o.layers = 1;
    o.embedding = false;
    o.collectives = false;
    o.only_dies = {0};
    o.name = "llama3-70b decoder layer, TP shard 1/8, seq 4096, bf16, forward (built-in)";
    const tracegen::Generator gen(tracegen::load_model("llama3-70b"), o);
    std::ostringstream text;
    gen.write_die(0, text);
    return {kDefaultTrace,
            "Llama-3-70B decoder layer, TP shard 1/8, seq 4096, bf16, forward (generated; TP "
            "all-reduces "
            "left out: a single die cannot run collectives)",
            text.str()};
}

const std::vector<std::string>& builtin_trace_names() {
    static const std::vector<std::string> names = {kDefaultTrace};
    return names;
}

BuiltinTrace builtin_trace(const std::string& name) {
    if (name == kDefaultTrace) return builtin_llama3_70b_layer();
    throw InputError("unknown built-in trace '" + name + "' (available: " + kDefaultTrace + ")");
}

}  // namespace asim
