// `ascend-sim figures gemm`: each GEMM of a list run as a one-op trace through the full die model
// (the `ascend-sim run` path: tiler, tile pipelines, L2, HBM), one CSV row per shape with its
// time, achieved throughput and utilisation against the die's peak for the dtype.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "testbenches/figures/hbm_figures.h"

namespace asim {

struct GemmShape {
    uint64_t m = 0, n = 0, k = 0;
};

// Parses "M,N,K;M,N,K;..." (spaces allowed around numbers); throws InputError naming the bad
// entry for anything else: missing or extra numbers, non-numbers, zero, or a dimension above
// 2^31 (M*N*K then always fits the counters).
std::vector<GemmShape> parse_gemm_shapes(const std::string& text);

// The columns of both GEMM tables (gemm and systolic).
extern const std::vector<std::string> kGemmColumns;

struct GemmFiguresOptions {
    std::string platform;
    std::vector<std::string> overrides;  // --set KEY=VALUE, applied to every run
    std::string shapes;
    std::string dtype = "bf16";  // bf16, fp8 or fp4
};

// Throws InputError for bad options (before any simulation), SimulationError when a run fails.
FigureTable gemm_figures(const GemmFiguresOptions& o);

}  // namespace asim
