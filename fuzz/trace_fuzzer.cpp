// Fuzzes the op trace reader (models/common/trace.h): the input is a trace file, read from a
// stream, or through zlib when it starts with the gzip magic. Every op is checked for id gaps and
// its FLOPs are computed, as the replay does.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>

#include "fuzz/fuzz_support.h"
#include "models/common/trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const auto text = asim::fuzz::as_text(data, size);
    asim::fuzz::expect_only_input_errors([&] {
        const bool gz = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
        std::unique_ptr<asim::trace::TraceReader> reader;
        if (gz) {
            reader = std::make_unique<asim::trace::TraceReader>(
                asim::fuzz::write_scratch_file("fuzz.jsonl.gz", text));
        } else {
            reader = std::make_unique<asim::trace::TraceReader>(
                std::make_unique<std::istringstream>(std::string(text)), "fuzz.jsonl");
        }
        asim::trace::IdGaps gaps;
        asim::trace::Op op;
        while (reader->next(op)) {
            gaps.check(op, reader->display_name());
            (void)asim::trace::op_flops(op);
        }
    });
    return 0;
}
