#include "models/chip/aicore/aicore_params.h"

#include <cmath>

#include "models/common/config.h"

namespace asim {

uint64_t AiCoreParams::vector_cycles(const std::string& func, uint64_t elements,
                                     uint32_t elem_bytes) const {
    const auto it = vector_cost.find(func);
    const double cost = it == vector_cost.end() ? 1.0 : it->second;
    const double lanes = static_cast<double>(vector_bytes_per_cycle) * vector_issue_width / elem_bytes;
    return static_cast<uint64_t>(std::ceil(static_cast<double>(elements) * cost / lanes));
}

std::vector<std::pair<std::string, std::string>> AiCoreParams::validate() const {
    std::vector<std::pair<std::string, std::string>> problems;
    if (cube_fractals.empty()) problems.emplace_back("cube.fractals", "needs at least one dtype");
    for (const auto& [dtype, f] : cube_fractals) {
        if (f.m == 0 || f.k == 0 || f.n == 0) {
            problems.emplace_back("cube.fractals." + std::string(to_string(dtype)),
                                  "fractal dimensions must be positive");
        }
    }
    for (const auto& [func, cost] : vector_cost) {
        if (!(cost > 0)) problems.emplace_back("vector.cost." + func, "must be greater than zero");
    }
    // Every buffer must hold at least one fractal of every dtype the Cube takes (L1 one A and
    // one B fractal; L0C accumulates in 32-bit), and the UB one vector pass.
    for (const auto& [dtype, f] : cube_fractals) {
        const uint64_t bits = dtype_bits(dtype);
        const uint64_t a = (uint64_t{f.m} * f.k * bits + 7) / 8, b = (uint64_t{f.k} * f.n * bits + 7) / 8;
        const uint64_t c = uint64_t{f.m} * f.n * 4;
        const std::string what = " B is smaller than one " + std::string(to_string(dtype)) + " fractal (";
        auto check = [&](const char* key, uint64_t have, uint64_t need, const char* part) {
            if (have < need) {
                problems.emplace_back(key, std::to_string(have) + what + part + " " + std::to_string(need) + " B)");
            }
        };
        check("buffers.l0a", l0a_bytes, a, "A");
        check("buffers.l0b", l0b_bytes, b, "B");
        check("buffers.l0c", l0c_bytes, c, "32-bit accumulators");
        check("buffers.l1", l1_bytes, a + b, "A and B");
    }
    if (vector_cores > 0 && ub_bytes < vector_bytes_per_cycle) {
        problems.emplace_back("buffers.ub", std::to_string(ub_bytes) + " B is smaller than one vector pass (" +
                                                std::to_string(vector_bytes_per_cycle) + " B)");
    }
    for (const auto& [key, message] : matrix_engine.systolic.validate()) {
        if (matrix_engine.kind == MatrixEngineKind::kSystolic) problems.emplace_back("matrix_engine." + key, message);
    }
    return problems;
}

AiCoreParams parse_aicore_params(const ConfigNode& node) {
    AiCoreParams p;
    const ConfigNode cube = node.child("cube");
    const ConfigNode fractals = cube.child("fractals");
    for (const std::string& key : fractals.keys()) {
        const auto dtype = dtype_from_string(key);
        if (!dtype) fractals.fail(key, "unknown dtype (use fp32, tf32, fp16, bf16, fp8, hif8, int8, fp4, hif4, int4)");
        const auto mkn = fractals.integer_list(key, Range{1, 1024});
        if (mkn.size() != 3) fractals.fail(key, "needs [m, k, n]");
        p.cube_fractals[*dtype] = {static_cast<uint32_t>(mkn[0]), static_cast<uint32_t>(mkn[1]),
                                   static_cast<uint32_t>(mkn[2])};
    }
    p.cube_fractals_per_cycle = static_cast<uint32_t>(cube.integer("fractals_per_cycle", Range{1, 64}));

    if (const auto engine = node.optional_child("matrix_engine")) {
        const std::string kind = engine->choice("kind", {"cube", "systolic"});
        if (kind == "systolic") {
            SystolicParams& s = p.matrix_engine.systolic;
            p.matrix_engine.kind = MatrixEngineKind::kSystolic;
            s.rows = static_cast<uint32_t>(engine->integer("rows", s.rows, Range{1, 4096}));
            s.cols = static_cast<uint32_t>(engine->integer("cols", s.cols, Range{1, 4096}));
            const std::string df = engine->choice("dataflow", {"os", "ws", "is"}, to_string(s.dataflow));
            s.dataflow = df == "os"   ? SystolicDataflow::kOutputStationary
                         : df == "ws" ? SystolicDataflow::kWeightStationary
                                      : SystolicDataflow::kInputStationary;
            if (const auto macs = engine->optional_child("macs_per_cell")) {
                s.macs_per_cell.clear();
                for (const std::string& key : macs->keys()) {
                    const auto dtype = dtype_from_string(key);
                    if (!dtype) macs->fail(key, "unknown dtype (use fp32, tf32, fp16, bf16, fp8, hif8, int8, fp4, hif4, int4)");
                    s.macs_per_cell[*dtype] = static_cast<uint32_t>(macs->integer(key, Range{1, 64}));
                }
            }
        } else {
            for (const std::string& key : engine->keys()) {
                if (key != "kind") {
                    engine->fail(key, "applies to kind: systolic only (the cube's shape is aicore.cube.fractals)");
                }
            }
        }
    }

    const ConfigNode vector = node.child("vector");
    p.vector_cores = static_cast<uint32_t>(vector.integer("cores", Range{0, 16}));
    p.vector_bytes_per_cycle = static_cast<uint32_t>(vector.integer("bytes_per_cycle", Range{1, 65536}));
    p.vector_issue_width = static_cast<uint32_t>(vector.integer("issue_width", Range{1, 8}));
    const ConfigNode cost = vector.child("cost");
    for (const std::string& func : cost.keys()) p.vector_cost[func] = cost.real(func, Range{1e-6, 1e6});

    const ConfigNode buffers = node.child("buffers");
    p.l1_bytes = buffers.size_bytes("l1");
    p.l0a_bytes = buffers.size_bytes("l0a");
    p.l0b_bytes = buffers.size_bytes("l0b");
    p.l0c_bytes = buffers.size_bytes("l0c");
    p.ub_bytes = buffers.size_bytes("ub");

    const ConfigNode paths = node.child("paths_bytes_per_cycle");
    p.aic_gm_read = paths.real("aic_gm_read", Range{1e-3, 1e6});
    p.aic_gm_write = paths.real("aic_gm_write", Range{1e-3, 1e6});
    p.l1_to_l0a = paths.real("l1_to_l0a", Range{1e-3, 1e6});
    p.l1_to_l0b = paths.real("l1_to_l0b", Range{1e-3, 1e6});
    p.aiv_gm_read = paths.real("aiv_gm_read", Range{1e-3, 1e6});
    p.aiv_gm_write = paths.real("aiv_gm_write", Range{1e-3, 1e6});
    p.l0c_to_ub = paths.real("l0c_to_ub", Range{1e-3, 1e6});
    p.ub_to_l1 = paths.real("ub_to_l1", Range{1e-3, 1e6});

    if (const auto tiling = node.optional_child("tiling")) {
        // The names of matmul_schedulers() (tiling.h).
        p.matmul_scheduler = tiling->choice("matmul", {"split_k", "blocked"}, p.matmul_scheduler);
    }

    for (const auto& [key, message] : p.validate()) node.fail(key, message);
    return p;
}

}  // namespace asim
