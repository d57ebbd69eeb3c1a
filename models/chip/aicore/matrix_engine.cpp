#include "models/chip/aicore/matrix_engine.h"

#include "models/chip/aicore/aicore_params.h"

namespace asim {

namespace {

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

std::string dtype_list(const std::vector<DType>& dtypes) {
    std::string s;
    for (DType d : dtypes) s += (s.empty() ? "" : ", ") + std::string(to_string(d));
    return s;
}

// The DaVinci Cube: `fractals_per_cycle` [fm x fk] x [fk x fn] fractals per cycle. A tile is
// padded up to whole fractals in each dimension (the NZ layout stores partial fractals
// zero-filled).
class CubeEngine : public MatrixEngine {
public:
    CubeEngine(std::map<DType, CubeFractal> fractals, uint32_t per_cycle)
        : m_fractals(std::move(fractals)), m_per_cycle(per_cycle) {}

    std::string kind() const override { return "cube"; }
    bool supports(DType dtype) const override { return m_fractals.count(dtype) != 0; }
    std::string unsupported_reason(DType dtype) const override {
        std::vector<DType> have;
        for (const auto& [d, f] : m_fractals) have.push_back(d);
        return "the cube matrix engine has no fractal for dtype " + std::string(to_string(dtype)) +
               " (it has: " + dtype_list(have) + ")";
    }
    uint64_t peak_macs_per_cycle(DType dtype) const override {
        const auto it = m_fractals.find(dtype);
        return it == m_fractals.end() ? 0 : it->second.macs() * m_per_cycle;
    }
    uint64_t cycles(uint64_t m, uint64_t n, uint64_t k, DType dtype) const override {
        const CubeFractal& f = m_fractals.at(dtype);
        return ceil_div(ceil_div(m, f.m) * ceil_div(n, f.n) * ceil_div(k, f.k), m_per_cycle);
    }

private:
    std::map<DType, CubeFractal> m_fractals;
    uint32_t m_per_cycle;
};

class SystolicEngine : public MatrixEngine {
public:
    explicit SystolicEngine(SystolicParams p) : m_p(std::move(p)) {}

    std::string kind() const override { return "systolic"; }
    bool supports(DType dtype) const override { return m_p.macs_per_cell.count(dtype) != 0; }
    std::string unsupported_reason(DType dtype) const override {
        std::vector<DType> have;
        for (const auto& [d, n] : m_p.macs_per_cell) have.push_back(d);
        return "the systolic matrix engine does not support dtype " +
               std::string(to_string(dtype)) + " (it supports: " + dtype_list(have) +
               "; add it under die.aicore.matrix_engine.macs_per_cell)";
    }
    uint64_t peak_macs_per_cycle(DType dtype) const override {
        const auto it = m_p.macs_per_cell.find(dtype);
        return it == m_p.macs_per_cell.end() ? 0 : uint64_t{m_p.rows} * m_p.cols * it->second;
    }
    uint64_t cycles(uint64_t m, uint64_t n, uint64_t k, DType dtype) const override {
        return systolic_timing(m_p, m, n, k, m_p.macs_per_cell.at(dtype)).cycles();
    }

private:
    SystolicParams m_p;
};

}  // namespace

const char* to_string(SystolicDataflow dataflow) {
    switch (dataflow) {
        case SystolicDataflow::kOutputStationary:
            return "os";
        case SystolicDataflow::kWeightStationary:
            return "ws";
        case SystolicDataflow::kInputStationary:
            return "is";
    }
    return "?";
}

std::vector<std::pair<std::string, std::string>> SystolicParams::validate() const {
    std::vector<std::pair<std::string, std::string>> problems;
    if (rows == 0) problems.emplace_back("rows", "must be positive");
    if (cols == 0) problems.emplace_back("cols", "must be positive");
    if (macs_per_cell.empty()) problems.emplace_back("macs_per_cell", "needs at least one dtype");
    for (const auto& [dtype, n] : macs_per_cell) {
        if (n == 0)
            problems.emplace_back("macs_per_cell." + std::string(to_string(dtype)),
                                  "must be positive");
    }
    return problems;
}

// The array's rows are indexed r = 0..R-1 (operands enter at the left edge, one row per cycle
// later than the row above: the skew that makes the operands of one dot product meet), columns
// c = 0..C-1. With `s` operand vectors streamed per fold, cell (r, c) does its last MAC at cycle
// (s - 1) + r + c, so a fold takes s + (R - 1) + (C - 1) cycles from its first operand to its
// last MAC: the fill (R - 1, the skew down the rows), the stream (s) and the drain (C - 1, the
// last operand crossing the columns; in weight- and input-stationary mode the partial sums flow
// down the rows and leave at the bottom edge in the same wavefront). The stationary operand of
// ws and is is first shifted in from the top edge, one row per cycle: R cycles of preload.
//   os: A rows on the array rows, B columns on the array columns, k streams; the finished sums
//       leave with the wavefront (no preload).   folds = ceil(m/R) ceil(n/C), s = k
//   ws: B (k x n) stationary, k on the rows, n on the columns, m streams.
//                                                   folds = ceil(k/R) ceil(n/C), s = m
//   is: A (m x k) stationary, k on the rows, m on the columns, n streams.
//                                                   folds = ceil(k/R) ceil(m/C), s = n
// A fold that covers only part of the array (a ragged edge) still pays the full skew: the
// operands and sums enter and leave at the array's edges. Folds are not overlapped.
SystolicTiming systolic_timing(const SystolicParams& p, uint64_t m, uint64_t n, uint64_t k,
                               uint32_t k_pack) {
    const uint64_t rows = p.rows, cols = p.cols;
    const uint64_t kk = ceil_div(k, k_pack == 0 ? 1 : k_pack);  // reduction steps per cell
    SystolicTiming t;
    t.fill = rows - 1;
    t.drain = cols - 1;
    switch (p.dataflow) {
        case SystolicDataflow::kOutputStationary:
            t.folds = ceil_div(m, rows) * ceil_div(n, cols);
            t.preload = 0;
            t.stream = kk;
            break;
        case SystolicDataflow::kWeightStationary:
            t.folds = ceil_div(kk, rows) * ceil_div(n, cols);
            t.preload = rows;
            t.stream = m;
            break;
        case SystolicDataflow::kInputStationary:
            t.folds = ceil_div(kk, rows) * ceil_div(m, cols);
            t.preload = rows;
            t.stream = n;
            break;
    }
    return t;
}

Registry<MatrixEngine, const AiCoreParams&>& matrix_engine_registry() {
    static Registry<MatrixEngine, const AiCoreParams&> registry("matrix engine");
    return registry;
}

ASIM_REGISTER(matrix_engine_registry(), cube,
              "the DaVinci Cube: fractals_per_cycle fractals of die.aicore.cube.fractals per cycle",
              {}, [](const ParamValues&, const AiCoreParams& core) {
                  return std::make_unique<CubeEngine>(core.cube_fractals,
                                                      core.cube_fractals_per_cycle);
              });

ASIM_REGISTER(
    matrix_engine_registry(), systolic,
    "an R x C array of MAC cells, output-, weight- or input-stationary (SCALE-Sim's model)",
    {Param::integer("rows", "cells", "R: cells down the array").dflt("64").range(1, 4096),
     Param::integer("cols", "cells", "C: cells across the array").dflt("64").range(1, 4096),
     Param::choice("dataflow", {"os", "ws", "is"}, "output, weight or input stationary")
         .dflt("ws")},
    [](const ParamValues&, const AiCoreParams& core) {
        return std::make_unique<SystolicEngine>(core.matrix_engine.systolic);
    });

SystolicParams systolic_params(const ParamValues& values) {
    SystolicParams s;
    s.rows = static_cast<uint32_t>(values.integer("rows"));
    s.cols = static_cast<uint32_t>(values.integer("cols"));
    const std::string& df = values.string("dataflow");
    s.dataflow = df == "os"   ? SystolicDataflow::kOutputStationary
                 : df == "ws" ? SystolicDataflow::kWeightStationary
                              : SystolicDataflow::kInputStationary;
    return s;
}

std::unique_ptr<MatrixEngine> make_matrix_engine(const AiCoreParams& core) {
    return matrix_engine_registry().make(core.matrix_engine.kind, {}, core);
}

}  // namespace asim
