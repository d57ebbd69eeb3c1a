// Fuzzes the sweep grid parser (testbenches/sweep/grid.h): each input line is one `--grid`
// argument; the axes that parse are crossed into points, and every point's id and overrides are
// made.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_support.h"
#include "testbenches/sweep/grid.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    const std::string text(asim::fuzz::as_text(data, size));
    std::vector<asim::sweep::GridAxis> axes;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const std::string spec = text.substr(start, end - start);
        asim::fuzz::expect_only_input_errors(
            [&] { axes.push_back(asim::sweep::parse_grid_spec(spec)); });
        start = end + 1;
    }
    asim::fuzz::expect_only_input_errors([&] {
        const auto points = asim::sweep::cartesian_points(axes);
        for (const auto& p : points) {
            (void)asim::sweep::point_id(p.index, points.size(), axes, p.values);
            (void)asim::sweep::point_overrides(axes, p);
        }
    });
    return 0;
}
