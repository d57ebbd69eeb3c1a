// Fuzzes the DRAMSim3 memory trace reader of `mem-replay` (testbenches/mem_replay/mem_trace.h):
// the input is the trace file (plain, or gzip when it starts with the gzip magic; zlib reads
// both). Both entry points are driven: next() (exceptions) and read() (error text).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "fuzz/fuzz_support.h"
#include "testbenches/mem_replay/mem_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string path =
        asim::fuzz::write_scratch_file("mem.trace", asim::fuzz::as_text(data, size));
    uint64_t records = 0;
    asim::fuzz::expect_only_input_errors([&] {
        asim::MemTraceReader reader(path);
        asim::MemRecord r;
        while (reader.next(r)) ++records;
    });
    // read() must agree with next(): the same records, then an error or the end.
    asim::MemTraceReader reader(path);
    asim::MemRecord r;
    std::string error;
    uint64_t again = 0;
    while (reader.read(r, error)) ++again;
    if (again != records) throw std::logic_error("read() and next() disagree on the record count");
    return 0;
}
