// `ascend-sim figures collectives`: an nccl-tests-style table of one collective against size on
// the platform's network (flow-level model, collective engine). Table "collectives_<op>":
// size_bytes,time_us,algbw_GBps,busbw_GBps. algbw = size / time; busbw = algbw x 2(p-1)/p for
// all-reduce, x (p-1)/p for all-gather, reduce-scatter and all-to-all, x 1 otherwise. When the
// platform declares faults, each size also runs without them and the slowdown goes to stderr.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "testbenches/figures/hbm_figures.h"

namespace asim {

struct CollectiveFiguresOptions {
    std::string platform;
    std::vector<std::string> overrides;
    std::string op = "allreduce";
    std::string sizes = "1KiB..1GiB";
    uint32_t dies = 0;  // 0: all dies of the platform
    std::string algo;   // "": the platform's default for the op
};

std::vector<FigureTable> collective_figures(const CollectiveFiguresOptions& o);

}  // namespace asim
