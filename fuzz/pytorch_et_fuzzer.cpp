// Fuzzes the PyTorch execution-trace importer (testbenches/trace_gen/et_import.h): the input is
// the execution trace. An import that succeeds must have written a trace the op trace reader
// accepts, every op of it (the importer must never write what `run` then refuses).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include "fuzz/fuzz_support.h"
#include "models/common/trace.h"
#include "testbenches/trace_gen/et_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string path =
        asim::fuzz::write_scratch_file("et.json", asim::fuzz::as_text(data, size));
    std::ostringstream out;
    bool imported = false;
    asim::fuzz::expect_only_input_errors([&] {
        asim::tracegen::import_pytorch_et(path, out, "fuzz");
        imported = true;
    });
    if (!imported) return 0;
    try {
        asim::trace::TraceReader reader(std::make_unique<std::istringstream>(out.str()),
                                        "imported.jsonl");
        asim::trace::IdGaps gaps;
        asim::trace::Op op;
        while (reader.next(op)) gaps.check(op, reader.display_name());
    } catch (const asim::InputError& e) {
        throw std::logic_error(std::string("the importer wrote a trace the reader refuses: ") +
                               e.what());
    }
    return 0;
}
