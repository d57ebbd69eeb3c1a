// Fuzzes both readers of a trace set's index.json: the one `run --trace SET` uses
// (models/common/trace_set_index.h) and `trace stats SET` (testbenches/trace_gen/
// trace_stats.h). The input is index.json; beside it lie die0.jsonl and die1.jsonl, the traces of
// dies 0 and 1 of a 2-die set, so that an index can name real files.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_support.h"
#include "models/common/trace_set_index.h"
#include "testbenches/trace_gen/trace_stats.h"

namespace {

void write_die_traces() {
    for (int die = 0; die < 2; ++die) {
        asim::fuzz::write_scratch_file(
            "die" + std::to_string(die) + ".jsonl",
            "{\"format\":\"ascend-sim-trace\",\"version\":1,\"name\":\"set\",\"dies\":2,\"die\":" +
                std::to_string(die) +
                "}\n{\"id\":0,\"op\":\"elementwise\",\"func\":\"add\",\"cols\":1024,"
                "\"inputs\":[{\"addr\":\"0x1000\",\"bytes\":2048}],"
                "\"outputs\":[{\"addr\":\"0x2000\",\"bytes\":2048}]}\n");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    static const bool ready = (write_die_traces(), true);
    (void)ready;
    const std::string index =
        asim::fuzz::write_scratch_file("index.json", asim::fuzz::as_text(data, size));
    asim::fuzz::expect_only_input_errors([&] { asim::read_trace_set_index(index); });
    asim::fuzz::expect_only_input_errors(
        [&] { asim::tracegen::trace_stats(asim::fuzz::scratch_dir()); });
    return 0;
}
