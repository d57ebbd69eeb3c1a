#include "models/chip/aicore/aicore_params.h"

#include <cmath>

#include "models/chip/aicore/matrix_engine.h"
#include "models/chip/aicore/tiling.h"
#include "models/common/config.h"
#include "models/common/params.h"

namespace asim {

uint64_t AiCoreParams::vector_cycles(const std::string& func, uint64_t elements,
                                     uint32_t elem_bytes) const {
    const auto it = vector_cost.find(func);
    const double cost = it == vector_cost.end() ? 1.0 : it->second;
    const double lanes =
        static_cast<double>(vector_bytes_per_cycle) * vector_issue_width / elem_bytes;
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
        const uint64_t a = (uint64_t{f.m} * f.k * bits + 7) / 8,
                       b = (uint64_t{f.k} * f.n * bits + 7) / 8;
        const uint64_t c = uint64_t{f.m} * f.n * 4;
        const std::string what =
            " B is smaller than one " + std::string(to_string(dtype)) + " fractal (";
        auto check = [&](const char* key, uint64_t have, uint64_t need, const char* part) {
            if (have < need) {
                problems.emplace_back(
                    key, std::to_string(have) + what + part + " " + std::to_string(need) + " B)");
            }
        };
        check("buffers.l0a", l0a_bytes, a, "A");
        check("buffers.l0b", l0b_bytes, b, "B");
        check("buffers.l0c", l0c_bytes, c, "32-bit accumulators");
        check("buffers.l1", l1_bytes, a + b, "A and B");
    }
    if (vector_cores > 0 && ub_bytes < vector_bytes_per_cycle) {
        problems.emplace_back("buffers.ub", std::to_string(ub_bytes) +
                                                " B is smaller than one vector pass (" +
                                                std::to_string(vector_bytes_per_cycle) + " B)");
    }
    for (const auto& [key, message] : matrix_engine.systolic.validate()) {
        if (matrix_engine.kind == "systolic")
            problems.emplace_back("matrix_engine." + key, message);
    }
    return problems;
}

namespace {

const char* const kDtypes = "fp32, tf32, fp16, bf16, fp8, hif8, int8, fp4, hif4, int4";

const ParamTable kCube({"die.aicore.cube"}, "AI core: Cube",
                       {Param::integer("fractals_per_cycle", "",
                                       "fractals the Cube completes per cycle")
                            .range(1, 64)});

const ParamTable kFractals(
    {"die.aicore.cube.fractals"}, "AI core: Cube fractals",
    {Param::integer_list("<dtype>", "elements",
                         std::string("[m, k, n] of one fractal in this dtype (") + kDtypes +
                             "); a dtype without one is refused")
         .range(1, 1024)});

const ParamTable kMatrixEngine(
    {"die.aicore.matrix_engine"}, "AI core: matrix engine",
    {Param::implementation("kind", matrix_engine_registry(), "matrix engine").dflt("cube")});

const ParamTable kMacsPerCell(
    {"die.aicore.matrix_engine.macs_per_cell"}, "AI core: systolic cells",
    {Param::integer("<dtype>", "MACs",
                    "(systolic) MACs per cell and cycle along k in this "
                    "dtype; the map replaces the default fp16: 1, bf16: 1")
         .range(1, 64)});

const ParamTable kVector(
    {"die.aicore.vector"}, "AI core: vector units",
    {Param::integer("cores", "", "vector cores per AI core").range(0, 16),
     Param::integer("bytes_per_cycle", "B", "SIMD width").range(1, 65536),
     Param::integer("issue_width", "", "SIMD instructions issued per cycle").range(1, 8)});

const ParamTable kVectorCost({"die.aicore.vector.cost"}, "AI core: vector cost",
                             {Param::real("<function>", "passes",
                                          "SIMD passes per element of this function "
                                          "(add, exp, softmax, ...); 1 when not listed")
                                  .range(1e-6, 1e6)});

const ParamTable kBuffers({"die.aicore.buffers"}, "AI core: buffers",
                          {Param::size("l1", "L1 buffer (Cube operands)"),
                           Param::size("l0a", "L0A (A fractals)"),
                           Param::size("l0b", "L0B (B fractals)"),
                           Param::size("l0c", "L0C (32-bit accumulators)"),
                           Param::size("ub", "unified buffer of each vector core")});

Param path(const char* key, const char* description) {
    return Param::real(key, "B/cycle", description).range(1e-3, 1e6);
}

const ParamTable kPaths({"die.aicore.paths_bytes_per_cycle"}, "AI core: data paths",
                        {path("aic_gm_read", "Cube core reading GM (through the L2)"),
                         path("aic_gm_write", "Cube core writing GM (FixPipe)"),
                         path("l1_to_l0a", "L1 to L0A"), path("l1_to_l0b", "L1 to L0B"),
                         path("aiv_gm_read", "vector core reading GM"),
                         path("aiv_gm_write", "vector core writing GM"),
                         path("l0c_to_ub", "L0C to UB: the direct Cube-to-vector path"),
                         path("ub_to_l1", "UB to L1: the direct vector-to-Cube path")});

const ParamTable kTiling({"die.aicore.tiling"}, "AI core: tiling",
                         {Param::implementation("matmul", matmul_scheduler_registry(),
                                                "matmul scheduler")
                              .dflt("split_k")});

// A map of dtype -> value (fractals, MACs per cell): every key must name a dtype.
template <typename Read>
void for_each_dtype(const ConfigNode& map, Read read) {
    for (const std::string& key : map.keys()) {
        const auto dtype = dtype_from_string(key);
        if (!dtype) {
            map.report(key, std::string("unknown dtype (use ") + kDtypes + ")");
            continue;
        }
        read(key, *dtype);
    }
}

}  // namespace

AiCoreParams parse_aicore_params(const ConfigNode& node) {
    AiCoreParams p;
    const ConfigNode cube = node.child("cube");
    for_each_dtype(cube.child("fractals"), [&](const std::string& key, DType dtype) {
        const auto mkn =
            cube.child("fractals").integer_list(key, kFractals["<dtype>"].value_range().value());
        if (mkn.size() != 3) return cube.child("fractals").report(key, "needs [m, k, n]");
        p.cube_fractals[dtype] = {static_cast<uint32_t>(mkn[0]), static_cast<uint32_t>(mkn[1]),
                                  static_cast<uint32_t>(mkn[2])};
    });
    p.cube_fractals_per_cycle = static_cast<uint32_t>(kCube.integer(cube, "fractals_per_cycle"));

    if (const auto engine = node.optional_child("matrix_engine")) {
        p.matrix_engine.kind = kMatrixEngine.string(*engine, "kind");
        const ParamValues values =
            matrix_engine_registry().read_params(*engine, p.matrix_engine.kind);
        const auto macs = engine->optional_child("macs_per_cell");
        if (p.matrix_engine.kind == "systolic") {
            std::map<DType, uint32_t> cells;
            if (macs) {
                for_each_dtype(*macs, [&](const std::string& key, DType dtype) {
                    cells[dtype] = static_cast<uint32_t>(
                        macs->integer(key, kMacsPerCell["<dtype>"].value_range().value()));
                });
            }
            p.matrix_engine.systolic = systolic_params(values);
            if (macs)
                p.matrix_engine.systolic.macs_per_cell = std::move(cells);  // replaces the default
        } else if (macs) {
            engine->report("macs_per_cell",
                           "is a parameter of the matrix engine 'systolic', not of the chosen '" +
                               p.matrix_engine.kind + "'");
        }
    }

    const ConfigNode vector = node.child("vector");
    p.vector_cores = static_cast<uint32_t>(kVector.integer(vector, "cores"));
    p.vector_bytes_per_cycle = static_cast<uint32_t>(kVector.integer(vector, "bytes_per_cycle"));
    p.vector_issue_width = static_cast<uint32_t>(kVector.integer(vector, "issue_width"));
    const ConfigNode cost = vector.child("cost");
    for (const std::string& func : cost.keys()) {
        p.vector_cost[func] = cost.real(func, kVectorCost["<function>"].value_range().value());
    }

    const ConfigNode buffers = node.child("buffers");
    p.l1_bytes = kBuffers.size(buffers, "l1");
    p.l0a_bytes = kBuffers.size(buffers, "l0a");
    p.l0b_bytes = kBuffers.size(buffers, "l0b");
    p.l0c_bytes = kBuffers.size(buffers, "l0c");
    p.ub_bytes = kBuffers.size(buffers, "ub");

    const ConfigNode paths = node.child("paths_bytes_per_cycle");
    p.aic_gm_read = kPaths.real(paths, "aic_gm_read");
    p.aic_gm_write = kPaths.real(paths, "aic_gm_write");
    p.l1_to_l0a = kPaths.real(paths, "l1_to_l0a");
    p.l1_to_l0b = kPaths.real(paths, "l1_to_l0b");
    p.aiv_gm_read = kPaths.real(paths, "aiv_gm_read");
    p.aiv_gm_write = kPaths.real(paths, "aiv_gm_write");
    p.l0c_to_ub = kPaths.real(paths, "l0c_to_ub");
    p.ub_to_l1 = kPaths.real(paths, "ub_to_l1");

    if (const auto tiling = node.optional_child("tiling"))
        p.matmul_scheduler = kTiling.string(*tiling, "matmul");

    if (!node.problems_reported()) {
        for (const auto& [key, message] : p.validate()) node.report(key, message);
    }
    return p;
}

}  // namespace asim
