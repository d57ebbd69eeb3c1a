// `ascend-sim figures collectives`: an nccl-tests-style table of one collective against size on
// the platform's network (flow-level model, collective engine). Table "collectives_<op>":
// size_bytes,time_us,algbw_GBps,busbw_GBps. algbw = size / time; busbw = algbw x 2(p-1)/p for
// all-reduce, x (p-1)/p for all-gather, reduce-scatter and all-to-all, x 1 otherwise. When the
// platform declares faults, each size also runs without them and the slowdown goes to stderr.
//
// All-to-all-v (--op alltoallv) takes its per-pair sizes from one of:
//   --skew F    every rank sends the --sizes value in total, split over the receivers by a Zipf
//               law of exponent F over the receiver's rank (rank j gets a share proportional to
//               1 / (j + 1)^F; F = 0 is uniform, F = 1 the classic Zipf): the same hot receivers
//               for every sender, as hot experts make in MoE dispatch. Shares are rounded down to
//               bytes and the leftover bytes go one each to the hottest receivers, so every row
//               sums exactly to the size. Default 0.
//   --counts F  a CSV file of p rows of p byte counts (row i: what rank i sends to rank j; p the
//               group size), e.g. a measured MoE routing. One table row; its size is the mean
//               bytes a rank sends (total / p).
// busbw uses the all-to-all factor (p - 1) / p on that per-rank size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "testbenches/figures/alltoallv_counts.h"
#include "testbenches/figures/hbm_figures.h"

namespace asim {

struct CollectiveFiguresOptions {
    std::string platform;
    std::vector<std::string> overrides;
    std::string op = "allreduce";
    std::string sizes = "1KiB..1GiB";
    uint32_t dies = 0;  // 0: all dies of the platform
    std::string algo;   // "": the platform's default for the op
    std::vector<std::string>
        faults;                // --fault LINK: down for the whole run, besides network.faults
    bool sizes_given = false;  // --sizes on the command line (not the default)
    std::string skew;          // alltoallv: Zipf exponent ("" = not given)
    std::string counts;        // alltoallv: CSV file of p x p byte counts ("" = not given)
};

// The --skew matrix (see above): p x p, row-major, each row summing to `size`.
std::vector<uint64_t> zipf_counts(uint32_t p, uint64_t size, double skew);

std::vector<FigureTable> collective_figures(const CollectiveFiguresOptions& o);

}  // namespace asim
