// The matrix engine of an AI core, chosen by name in the platform YAML
// (`die.aicore.matrix_engine.kind`) from its registry (models/common/registry.h): the stage of the
// tile pipeline that multiplies an [m x k] tile by a [k x n] tile. The tiler asks the engine how
// many cycles each tile takes, so the same trace can be replayed with a different engine and
// nothing else changed.
//
//  cube      the DaVinci fractal unit: one [fm x fk] x [fk x fn] fractal per cycle (16x16x16 at
//            FP16/BF16, 16x32x16 FP8/INT8, 16x64x16 FP4, 16x8x16 FP32); a tile takes its
//            fractal count, padded up to whole fractals in every dimension.
//  systolic  an R x C array of multiply-accumulate cells with an output-, weight- or
//            input-stationary dataflow. A tile is cut into folds (one mapping of the stationary
//            operand onto the array); folds are not overlapped, and each one costs its preload,
//            skewed fill, streaming and drain (formulas in SystolicTiming below and in the README).
//
// Timing only: both engines are arithmetic (no events); the tile pipeline places the cycles in
// time against the MTEs and the vector units.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/common/dtype.h"
#include "models/common/registry.h"

namespace asim {

struct AiCoreParams;

enum class SystolicDataflow { kOutputStationary, kWeightStationary, kInputStationary };

const char* to_string(SystolicDataflow dataflow);  // "os", "ws", "is"

struct SystolicParams {
    uint32_t rows = 64;  // R: cells down the array
    uint32_t cols = 64;  // C: cells across the array
    SystolicDataflow dataflow = SystolicDataflow::kWeightStationary;
    // Supported dtypes and the MACs one cell does per cycle in each, along the reduction
    // dimension (a cell that packs two FP8 products into one accumulation has 2).
    std::map<DType, uint32_t> macs_per_cell{{DType::kFp16, 1}, {DType::kBf16, 1}};

    std::vector<std::pair<std::string, std::string>> validate() const;  // (key, problem)
};

struct MatrixEngineParams {
    std::string kind = "cube";  // by name (matrix_engine_registry())
    SystolicParams systolic;    // used when kind is systolic
};

// The systolic engine's parameters from its registered keys (rows, cols, dataflow); the cells'
// MACs per dtype (a map by dtype) keep their default unless the caller sets them.
SystolicParams systolic_params(const ParamValues& values);

// Cycle breakdown of one systolic fold and the fold count of a GEMM.
struct SystolicTiming {
    uint64_t folds = 0;
    uint64_t preload = 0;  // cycles to shift the stationary operand in (0 for os)
    uint64_t fill = 0;     // skew: cycles until the last array row starts receiving operands
    uint64_t stream = 0;   // operand vectors streamed through the array per fold
    uint64_t drain = 0;    // cycles for the last operand to cross the array's columns
    uint64_t per_fold() const { return preload + fill + stream + drain; }
    uint64_t cycles() const { return folds * per_fold(); }
};

// Timing of a GEMM C[m x n] = A[m x k] B[k x n] on an R x C array (no memory stalls).
// `k_pack` MACs per cell and cycle along k (1 for FP16/BF16).
SystolicTiming systolic_timing(const SystolicParams& p, uint64_t m, uint64_t n, uint64_t k,
                               uint32_t k_pack);

class MatrixEngine {
public:
    virtual ~MatrixEngine() = default;
    virtual std::string kind() const = 0;  // its registered name
    virtual bool supports(DType dtype) const = 0;
    // Why `dtype` is refused, e.g. "the cube matrix engine has no fractal for dtype fp8".
    virtual std::string unsupported_reason(DType dtype) const = 0;
    // Peak multiply-accumulates per cycle in `dtype` (0 when unsupported).
    virtual uint64_t peak_macs_per_cycle(DType dtype) const = 0;
    // Cycles to multiply an [m x k] tile by a [k x n] tile, accumulating into the output
    // buffer. Precondition: supports(dtype) and m, n, k > 0.
    virtual uint64_t cycles(uint64_t m, uint64_t n, uint64_t k, DType dtype) const = 0;
};

// The engines by name; a factory builds its engine for the core it is given.
Registry<MatrixEngine, const AiCoreParams&>& matrix_engine_registry();

// The engine `core.matrix_engine` names (the cube takes its fractals from `core`).
std::unique_ptr<MatrixEngine> make_matrix_engine(const AiCoreParams& core);

}  // namespace asim
