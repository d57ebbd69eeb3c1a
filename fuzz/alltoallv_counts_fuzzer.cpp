// Fuzzes the all-to-all-v counts reader of `figures collectives --counts F`
// (testbenches/figures/alltoallv_counts.h). The first input byte chooses the group size p (1 to
// 64); the rest is the CSV file.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "fuzz/fuzz_support.h"
#include "testbenches/figures/alltoallv_counts.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const uint32_t p = 1 + data[0] % 64;
    const std::string path =
        asim::fuzz::write_scratch_file("counts.csv", asim::fuzz::as_text(data + 1, size - 1));
    asim::fuzz::expect_only_input_errors([&] {
        const auto counts = asim::read_counts(path, p);
        if (counts.size() != static_cast<std::size_t>(p) * p)
            throw std::logic_error("read_counts returned a matrix that is not p x p");
    });
    return 0;
}
