#include "testbenches/figures/systolic_figures.h"

#include <fmt/format.h>

#include "models/chip/aicore/matrix_engine.h"
#include "models/common/errors.h"
#include "models/common/units.h"
#include "testbenches/figures/gemm_figures.h"

namespace asim {

FigureTable systolic_figures(const SystolicFiguresOptions& o) {
    // Everything is checked before any row is computed.
    SystolicParams p;
    p.rows = o.rows;
    p.cols = o.cols;
    if (o.dataflow == "os") {
        p.dataflow = SystolicDataflow::kOutputStationary;
    } else if (o.dataflow == "ws") {
        p.dataflow = SystolicDataflow::kWeightStationary;
    } else if (o.dataflow == "is") {
        p.dataflow = SystolicDataflow::kInputStationary;
    } else {
        throw InputError("figures systolic: --dataflow must be os, ws or is, not '" + o.dataflow +
                         "'");
    }
    const auto dtype = dtype_from_string(o.dtype);
    if (!dtype) throw InputError("figures systolic: unknown --dtype '" + o.dtype + "'");
    p.macs_per_cell = {{*dtype, o.macs_per_cell}};
    for (const auto& [key, problem] : p.validate()) {
        throw InputError("figures systolic: " + key + " " + problem);
    }
    double hz = 0;
    try {
        hz = units::hertz(o.clock);
    } catch (const std::exception& e) {
        throw InputError("figures systolic: --clock: " + std::string(e.what()));
    }
    if (!(hz > 0)) throw InputError("figures systolic: --clock must be positive");
    const std::vector<GemmShape> shapes = parse_gemm_shapes(o.shapes);

    FigureTable t{"systolic_gemm", kGemmColumns, {}};
    const double peak_macs = static_cast<double>(p.rows) * p.cols * o.macs_per_cell;
    for (const GemmShape& s : shapes) {
        const SystolicTiming timing = systolic_timing(p, s.m, s.n, s.k, o.macs_per_cell);
        const double cycles = static_cast<double>(timing.cycles());
        const double macs =
            static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k);
        const double time_ns = cycles / hz * 1e9;
        t.rows.push_back({std::to_string(s.m), std::to_string(s.n), std::to_string(s.k), o.dtype,
                          std::to_string(timing.cycles()), fmt::format("{:.3f}", time_ns),
                          fmt::format("{:.6f}", 2.0 * macs / time_ns * 1e-3),
                          fmt::format("{:.6f}", macs / (cycles * peak_macs))});
    }
    return t;
}

}  // namespace asim
