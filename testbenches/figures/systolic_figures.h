// `ascend-sim figures systolic`: GEMM cycles of one R x C systolic array with ideal memory
// (operands always ready, no stalls), from the same fold arithmetic the `systolic` matrix
// engine uses inside the die (models/chip/aicore/matrix_engine.h). Calibrated against SCALE-Sim
// v2 (testbenches/figures/README.md).
#pragma once

#include <cstdint>
#include <string>

#include "testbenches/figures/hbm_figures.h"

namespace asim {

struct SystolicFiguresOptions {
    uint32_t rows = 32;
    uint32_t cols = 32;
    std::string dataflow = "os";  // os, ws or is
    std::string shapes;
    std::string dtype =
        "bf16";  // operand type (names the rows; the timing depends on macs_per_cell)
    uint32_t macs_per_cell = 1;  // MACs per cell and cycle along k in that dtype
    std::string clock = "1GHz";  // for time_ns and tflops
};

FigureTable systolic_figures(const SystolicFiguresOptions& o);

}  // namespace asim
