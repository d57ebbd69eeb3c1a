// `ascend-sim figures l2`: the L2's unloaded hit and miss latency and its load-latency curves
// (latency against offered bandwidth for an L2-resident sequential stream, up to and past the
// slices' saturation, and for a miss-dominated sequential stream against the HBM's peak), from
// the die's L2 and HBM driven like `mem-replay --target l2`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "testbenches/figures/hbm_figures.h"

namespace asim {

struct L2FiguresOptions {
    std::string platform;
    std::vector<std::string> overrides;
    uint64_t requests_per_point = 20000;
};

// Tables "l2_latency" (hit and miss rows) and "l2_load_latency".
std::vector<FigureTable> l2_figures(const L2FiguresOptions& o);

}  // namespace asim
