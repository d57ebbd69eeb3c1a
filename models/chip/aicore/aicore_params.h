// Parameters of one AI core (1 Cube core + 2 Vector cores, DaVinci 3rd generation) as the
// Foundation die model uses them. Values come from platform YAML (platforms/ascend960.yaml cites
// each); parsing lives in aicore_config.cpp so tests can build these directly.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "models/chip/aicore/matrix_engine.h"
#include "models/common/dtype.h"

namespace asim {

class ConfigNode;

struct CubeFractal {
    uint32_t m = 16, k = 16, n = 16;  // one fractal: [m x k] x [k x n] per cycle
    uint64_t macs() const { return uint64_t{m} * k * n; }
};

struct AiCoreParams {
    // Cube: fractal shape per dtype; dtypes without an entry are not supported by the Cube.
    std::map<DType, CubeFractal> cube_fractals;
    uint32_t cube_fractals_per_cycle = 1;
    // Which matrix engine computes the Cube stage (matrix_engine.h); the cube fractals above
    // also define the tile layout in L1/L0 whichever engine computes.
    MatrixEngineParams matrix_engine;

    // Vector core (AIV): SIMD width and issue width; per-function cost in vector passes per
    // element group (1 = one pass of the SIMD over the data).
    uint32_t vector_cores = 2;
    uint32_t vector_bytes_per_cycle = 256;
    uint32_t vector_issue_width = 2;
    std::map<std::string, double> vector_cost;

    // Local buffers (bytes).
    uint64_t l1_bytes = 512 << 10, l0a_bytes = 64 << 10, l0b_bytes = 64 << 10,
             l0c_bytes = 256 << 10, ub_bytes = 256 << 10;  // UB per vector core

    // Data paths (bytes per cycle of the core clock).
    double aic_gm_read = 100;   // MTE2 GM -> L1 (through L2)
    double aic_gm_write = 128;  // FixPipe L0C -> GM
    double l1_to_l0a = 256;     // MTE1
    double l1_to_l0b = 256;     // MTE1
    double aiv_gm_read = 100;   // MTE2 GM -> UB
    double aiv_gm_write = 42;   // MTE3 UB -> GM
    double l0c_to_ub = 128;     // Cube -> Vector direct path (FixPipe L0C -> UB)
    double ub_to_l1 = 128;      // Vector -> Cube direct path (UB -> L1)

    // Tiling choices (tiling.h): the matmul scheduler, by name (matmul_scheduler_registry()).
    std::string matmul_scheduler = "split_k";

    // Cycles of SIMD work for `elements` of `func` on one vector core.
    uint64_t vector_cycles(const std::string& func, uint64_t elements, uint32_t elem_bytes) const;
    std::vector<std::pair<std::string, std::string>> validate() const;
};

AiCoreParams parse_aicore_params(const ConfigNode& node);

}  // namespace asim
