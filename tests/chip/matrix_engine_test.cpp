// Matrix engines against first principles: the Cube's fractal counts per dtype, and the systolic
// array's fold arithmetic checked against a cycle-by-cycle register-transfer model of the array
// written here (operands shifting one cell per cycle), not against the formula it tests.
#include "models/chip/aicore/matrix_engine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "models/chip/aicore/tiling.h"
#include "models/common/config.h"
#include "models/common/errors.h"
#include "platforms/platform.h"

namespace asim {
namespace {

AiCoreParams default_core() { return load_platform(kDefaultPlatform, {}).die.core; }

TEST(CubeEngine, FractalCountsPerDtype) {
    const auto cube = make_matrix_engine(default_core());
    ASSERT_EQ(cube->kind(), "cube");
    // A 64 x 64 x 64 tile: (64/16) x (64/16) fractals of m x n, times 64 / fk along k.
    EXPECT_EQ(cube->cycles(64, 64, 64, DType::kBf16), 4u * 4u * 4u);  // 16x16x16
    EXPECT_EQ(cube->cycles(64, 64, 64, DType::kFp16), 4u * 4u * 4u);
    EXPECT_EQ(cube->cycles(64, 64, 64, DType::kFp8), 4u * 4u * 2u);  // 16x32x16
    EXPECT_EQ(cube->cycles(64, 64, 64, DType::kInt8), 4u * 4u * 2u);
    EXPECT_EQ(cube->cycles(64, 64, 64, DType::kFp4), 4u * 4u * 1u);   // 16x64x16
    EXPECT_EQ(cube->cycles(64, 64, 64, DType::kFp32), 4u * 4u * 8u);  // 16x8x16
    // Ragged tiles are padded to whole fractals in every dimension.
    EXPECT_EQ(cube->cycles(17, 33, 1, DType::kBf16), 2u * 3u * 1u);
    EXPECT_EQ(cube->cycles(16, 16, 65, DType::kFp4), 2u);
    // Peak MACs per cycle = one fractal per cycle.
    EXPECT_EQ(cube->peak_macs_per_cycle(DType::kBf16), 4096u);
    EXPECT_EQ(cube->peak_macs_per_cycle(DType::kFp8), 8192u);
    EXPECT_EQ(cube->peak_macs_per_cycle(DType::kFp4), 16384u);
    EXPECT_EQ(cube->peak_macs_per_cycle(DType::kFp32), 2048u);
    EXPECT_FALSE(cube->supports(DType::kInt32));
    EXPECT_EQ(cube->peak_macs_per_cycle(DType::kInt32), 0u);
}

// Cycle-by-cycle model of an output-stationary R x C array: A row r enters at the left edge
// delayed r cycles, B column c at the top delayed c cycles; every register moves one cell per
// cycle; a cell multiplies when an A and a B value meet in it. Returns the cycles until every
// cell has done its k MACs (the fold's end: the finished sums leave with the wavefront).
uint64_t stepped_os_fold(uint32_t rows, uint32_t cols, uint64_t k) {
    std::vector<std::vector<int64_t>> a(rows, std::vector<int64_t>(cols, -1)), b = a;  // -1 = empty
    std::vector<std::vector<uint64_t>> macs(rows, std::vector<uint64_t>(cols, 0));
    uint64_t done = 0;
    for (uint64_t cycle = 0;; ++cycle) {
        for (uint32_t r = 0; r < rows; ++r) {
            for (uint32_t c = cols; c-- > 0;) {
                a[r][c] = c == 0
                              ? (cycle >= r && cycle - r < k ? static_cast<int64_t>(cycle - r) : -1)
                              : a[r][c - 1];
            }
        }
        for (uint32_t c = 0; c < cols; ++c) {
            for (uint32_t r = rows; r-- > 0;) {
                b[r][c] = r == 0
                              ? (cycle >= c && cycle - c < k ? static_cast<int64_t>(cycle - c) : -1)
                              : b[r - 1][c];
            }
        }
        for (uint32_t r = 0; r < rows; ++r) {
            for (uint32_t c = 0; c < cols; ++c) {
                if (a[r][c] >= 0 && b[r][c] >= 0) {
                    EXPECT_EQ(a[r][c], b[r][c])
                        << "operands of different k met in cell " << r << "," << c;
                    if (++macs[r][c] == k) ++done;
                }
            }
        }
        if (done == uint64_t{rows} * cols) return cycle + 1;
    }
}

// Cycle-by-cycle model of one weight-stationary fold: the weights shift down from the top edge
// one row per cycle (R cycles); then input vector j's element for row r enters the left edge at
// (preload + j + r), moves right one cell per cycle, and the partial sum of (j, column c) moves
// down one row per cycle, leaving the bottom row. Returns the cycles until the last sum has left.
uint64_t stepped_ws_fold(uint32_t rows, uint32_t cols, uint64_t m) {
    // Preload: weight rows enter the top edge last row first and shift down one row per cycle.
    uint64_t preload = 0;
    std::vector<int> weight_row_of(rows, -1);  // which weight row sits in array row r
    for (uint64_t cycle = 0;; ++cycle) {
        for (uint32_t r = rows; r-- > 1;) weight_row_of[r] = weight_row_of[r - 1];
        weight_row_of[0] = cycle < rows ? static_cast<int>(rows - 1 - cycle) : -1;
        preload = cycle + 1;
        bool loaded = true;
        for (uint32_t r = 0; r < rows; ++r)
            loaded = loaded && weight_row_of[r] == static_cast<int>(r);
        if (loaded) break;
    }
    // Streaming: x[r][c] = input vector index in cell (r, c); s[r][c] = vector index of the sum
    // leaving cell (r, c) downwards (with the number of rows it has accumulated).
    std::vector<std::vector<int64_t>> x(rows, std::vector<int64_t>(cols, -1));
    std::vector<std::vector<int64_t>> s = x, depth = x;
    uint64_t out = 0;
    for (uint64_t cycle = 0;; ++cycle) {
        for (uint32_t r = 0; r < rows; ++r) {
            for (uint32_t c = cols; c-- > 0;) {
                x[r][c] = c == 0
                              ? (cycle >= r && cycle - r < m ? static_cast<int64_t>(cycle - r) : -1)
                              : x[r][c - 1];
            }
        }
        for (uint32_t c = 0; c < cols; ++c) {
            for (uint32_t r = rows; r-- > 0;) {
                const int64_t above = r == 0 ? x[0][c] : s[r - 1][c];
                const int64_t above_depth = r == 0 ? 0 : depth[r - 1][c];
                // Cell (r, c) adds x * w to the sum coming from above when both belong to the same
                // vector.
                if (x[r][c] >= 0 && (r == 0 || above == x[r][c])) {
                    s[r][c] = x[r][c];
                    depth[r][c] = above_depth + 1;
                } else {
                    s[r][c] = -1;
                }
            }
            if (s[rows - 1][c] >= 0) {
                EXPECT_EQ(depth[rows - 1][c], rows) << "a partial sum skipped a row";
                ++out;
            }
        }
        if (out == m * cols) return preload + cycle + 1;
    }
}

TEST(SystolicEngine, OneOutputStationaryFoldMatchesTheSteppedArray) {
    for (const auto& [r, c, k] : std::vector<std::tuple<uint32_t, uint32_t, uint64_t>>{
             {4, 4, 10}, {4, 4, 1}, {8, 3, 5}, {3, 8, 20}, {16, 16, 64}}) {
        SystolicParams p;
        p.rows = r;
        p.cols = c;
        p.dataflow = SystolicDataflow::kOutputStationary;
        const SystolicTiming t = systolic_timing(p, r, c, k, 1);
        EXPECT_EQ(t.folds, 1u);
        EXPECT_EQ(t.preload, 0u);
        EXPECT_EQ(t.cycles(), stepped_os_fold(r, c, k)) << r << "x" << c << " k=" << k;
    }
    // By hand: a 4 x 4 array, k = 10. Cell (3,3) gets its first operands after 3 + 3 cycles of
    // skew and its tenth 9 cycles later, at cycle 15 (0-based): 16 cycles.
    SystolicParams p;
    p.rows = p.cols = 4;
    p.dataflow = SystolicDataflow::kOutputStationary;
    EXPECT_EQ(systolic_timing(p, 4, 4, 10, 1).cycles(), 16u);
}

TEST(SystolicEngine, OneWeightStationaryFoldMatchesTheSteppedArray) {
    for (const auto& [r, c, m] : std::vector<std::tuple<uint32_t, uint32_t, uint64_t>>{
             {4, 4, 10}, {4, 4, 1}, {8, 3, 5}, {3, 8, 20}, {16, 16, 64}}) {
        SystolicParams p;
        p.rows = r;
        p.cols = c;
        p.dataflow = SystolicDataflow::kWeightStationary;
        const SystolicTiming t = systolic_timing(p, m, c, r, 1);  // k = R rows, n = C columns
        EXPECT_EQ(t.folds, 1u);
        EXPECT_EQ(t.preload, r);
        EXPECT_EQ(t.cycles(), stepped_ws_fold(r, c, m)) << r << "x" << c << " m=" << m;
    }
    // By hand: 4 x 4, m = 10: 4 cycles of preload, then the last vector (9) enters row 3 at
    // 9 + 3, crosses to column 3 (+3) and leaves the bottom: 4 + 9 + 3 + 3 + 1 = 20 cycles.
    SystolicParams p;
    p.rows = p.cols = 4;
    p.dataflow = SystolicDataflow::kWeightStationary;
    EXPECT_EQ(systolic_timing(p, 10, 4, 4, 1).cycles(), 20u);
}

TEST(SystolicEngine, InputStationaryIsWeightStationaryWithTheOperandsSwapped) {
    SystolicParams ws, is;
    ws.rows = is.rows = 8;
    ws.cols = is.cols = 4;
    ws.dataflow = SystolicDataflow::kWeightStationary;
    is.dataflow = SystolicDataflow::kInputStationary;
    // C = A B with A stationary is C^T = B^T A^T with B^T stationary: swap m and n.
    EXPECT_EQ(systolic_timing(is, 37, 100, 19, 1).cycles(),
              systolic_timing(ws, 100, 37, 19, 1).cycles());
    const SystolicTiming t = systolic_timing(is, 37, 100, 19, 1);
    EXPECT_EQ(t.folds, 3u * 10u);  // ceil(19 / 8) k-folds x ceil(37 / 4) m-folds
    EXPECT_EQ(t.per_fold(), 8u + 7u + 100u + 3u);
}

TEST(SystolicEngine, FoldsAreCountedPerDataflowAndNotOverlapped) {
    SystolicParams p;
    p.rows = p.cols = 4;
    const uint64_t m = 9, n = 5, k = 7;
    p.dataflow = SystolicDataflow::kOutputStationary;
    // os: ceil(9/4) x ceil(5/4) = 6 folds of k + (R-1) + (C-1) = 13 cycles.
    EXPECT_EQ(systolic_timing(p, m, n, k, 1).cycles(), 6u * 13u);
    // ws: ceil(7/4) x ceil(5/4) = 4 folds of R + (R-1) + m + (C-1) = 4 + 3 + 9 + 3 = 19 cycles.
    p.dataflow = SystolicDataflow::kWeightStationary;
    EXPECT_EQ(systolic_timing(p, m, n, k, 1).cycles(), 4u * 19u);
    // Two MACs per cell along k halve the reduction depth: os k = 7 -> 4 steps.
    p.dataflow = SystolicDataflow::kOutputStationary;
    EXPECT_EQ(systolic_timing(p, m, n, k, 2).cycles(), 6u * (4u + 3u + 3u));
    // The engine uses the same arithmetic and its peak is R x C x MACs per cell.
    AiCoreParams core = default_core();
    core.matrix_engine.kind = "systolic";
    core.matrix_engine.systolic = p;
    const auto e = make_matrix_engine(core);
    EXPECT_EQ(e->cycles(m, n, k, DType::kBf16), 6u * 13u);
    EXPECT_EQ(e->peak_macs_per_cycle(DType::kBf16), 16u);
}

trace::Op op_matmul(uint64_t m, uint64_t n, uint64_t k, DType dtype) {
    trace::Op op;
    op.id = 3;
    op.kind = trace::OpKind::kMatmul;
    op.dtype = dtype;
    op.matmul = {1, m, n, k, false, false};
    const uint64_t bits = dtype_bits(dtype);
    op.inputs = {{"a", 0, m * k * bits / 8, StreamClass::kActivation},
                 {"b", 1ULL << 32, k * n * bits / 8, StreamClass::kWeight}};
    op.outputs = {{"c", 1ULL << 33, m * n * 2, StreamClass::kActivation}};
    return op;
}

std::string refusal(const AiCoreParams& core, const trace::Op& op) {
    Tiler tiler(core, 4);
    try {
        tiler.plan(op);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

TEST(SystolicEngine, UnsupportedDtypeIsRefusedNamingTheOp) {
    AiCoreParams core = default_core();
    core.matrix_engine.kind = "systolic";  // default cells: fp16 and bf16
    const std::string why = refusal(core, op_matmul(256, 256, 256, DType::kFp8));
    EXPECT_NE(why.find("op 3"), std::string::npos) << why;
    EXPECT_NE(why.find("systolic"), std::string::npos) << why;
    EXPECT_NE(why.find("fp8"), std::string::npos) << why;
    EXPECT_EQ(refusal(core, op_matmul(256, 256, 256, DType::kBf16)), "");
    // The cube refuses a dtype without a fractal the same way.
    AiCoreParams cube = default_core();
    cube.cube_fractals.erase(DType::kFp4);
    EXPECT_NE(refusal(cube, op_matmul(64, 64, 64, DType::kFp4)).find("no fractal for dtype fp4"),
              std::string::npos);
}

TEST(Tiling, MatmulThatFitsNoBufferIsRefused) {
    // L1 of 4 KiB holds a fractal but not two double-buffered 256-row tiles of the smallest depth.
    AiCoreParams core = default_core();
    core.l1_bytes = 4 << 10;
    EXPECT_NE(refusal(core, op_matmul(4096, 4096, 4096, DType::kBf16)).find("L1"),
              std::string::npos);
    // L0A of 4 KiB cannot hold a 256 x 16 bf16 A tile (8 KiB).
    core = default_core();
    core.l0a_bytes = 4 << 10;
    EXPECT_NE(refusal(core, op_matmul(4096, 4096, 4096, DType::kBf16)).find("L0A"),
              std::string::npos);
    // The default buffers take it.
    EXPECT_EQ(refusal(default_core(), op_matmul(4096, 4096, 4096, DType::kBf16)), "");
}

TEST(Tiling, OverflowingDimensionsAreRefused) {
    const std::string why =
        refusal(default_core(), op_matmul(1ULL << 32, 1ULL << 32, 1ULL << 32, DType::kBf16));
    EXPECT_NE(why.find("op 3"), std::string::npos) << why;
    EXPECT_NE(why.find("overflow"), std::string::npos) << why;
    trace::Op big =
        op_matmul(1ULL << 20, 1ULL << 20, 1ULL << 20, DType::kBf16);  // 2^60 MACs x 8 > 2^63
    EXPECT_NE(refusal(default_core(), big).find("overflow"), std::string::npos);
    EXPECT_EQ(refusal(default_core(), op_matmul(1ULL << 20, 1ULL << 20, 1ULL << 19, DType::kBf16)),
              "");
}

TEST(Tiling, MatmulTilesFitEveryBufferForEveryDtype) {
    const AiCoreParams core = default_core();
    for (DType d : {DType::kBf16, DType::kFp8, DType::kFp4, DType::kFp32}) {
        Tiler tiler(core, 72);
        OpPlan plan = tiler.plan(op_matmul(8192, 8192, 8192, d));
        Tile t;
        ASSERT_TRUE(plan.cube_work[0].tiles->next(t));
        ASSERT_EQ(t.load_count, 2u);
        EXPECT_LE(t.loads[0].bytes, core.l0a_bytes) << to_string(d);
        EXPECT_LE(t.loads[1].bytes, core.l0b_bytes) << to_string(d);
        EXPECT_LE(2 * (t.loads[0].bytes + t.loads[1].bytes), core.l1_bytes) << to_string(d);
    }
}

TEST(Tiling, AttentionThatFitsNoBufferIsRefused) {
    AiCoreParams core = default_core();
    // Tiles shrink from 128 rows down to 16 while a buffer cannot hold them; with 16-row tiles S
    // (16 x 16 fp32) and O (16 x 128 fp32) need 9 KiB of L0C, so 8 KiB fits none. A 64 KiB L0C
    // (too small for 128-row tiles) still runs, with smaller tiles.
    core.l0c_bytes = 8 << 10;
    trace::Op op;
    op.id = 5;
    op.kind = trace::OpKind::kFusedAttention;
    op.attention = {1, 8, 8, 512, 512, 128, false};
    op.inputs = {{"q", 0, 1 << 20, StreamClass::kActivation},
                 {"k", 1ULL << 30, 1 << 20, StreamClass::kActivation},
                 {"v", 2ULL << 30, 1 << 20, StreamClass::kActivation}};
    op.outputs = {{"o", 3ULL << 30, 1 << 20, StreamClass::kActivation}};
    const std::string why = refusal(core, op);
    EXPECT_NE(why.find("L0C"), std::string::npos) << why;
    EXPECT_NE(why.find("op 5"), std::string::npos) << why;
    EXPECT_EQ(refusal(default_core(), op), "");
    core.l0c_bytes = 64 << 10;
    EXPECT_EQ(refusal(core, op), "");
}

TEST(AiCoreConfig, BuffersSmallerThanOneFractalAreConfigErrors) {
    // One bf16 A fractal is 16 x 16 x 2 = 512 B; fp32 A fractal 16 x 8 x 4 = 512 B.
    try {
        load_platform(kDefaultPlatform, {"die.aicore.buffers.l0a=256B"});
        FAIL() << "a 256 B L0A was accepted";
    } catch (const ConfigError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("l0a"), std::string::npos) << what;
        EXPECT_NE(what.find("fractal"), std::string::npos) << what;
    }
    EXPECT_THROW(load_platform(kDefaultPlatform, {"die.aicore.buffers.l0c=512B"}), ConfigError);
    EXPECT_THROW(load_platform(kDefaultPlatform, {"die.aicore.buffers.l1=1000B"}), ConfigError);
    EXPECT_NO_THROW(load_platform(kDefaultPlatform, {"die.aicore.buffers.l0a=512B"}));
}

TEST(AiCoreConfig, MatrixEngineIsChosenByNameWithStrictKeys) {
    const auto p = load_platform(
        kDefaultPlatform,
        {"die.aicore.matrix_engine.kind=systolic", "die.aicore.matrix_engine.rows=32",
         "die.aicore.matrix_engine.dataflow=os", "die.aicore.matrix_engine.macs_per_cell.fp8=2"});
    const MatrixEngineParams& e = p.die.core.matrix_engine;
    EXPECT_EQ(e.kind, "systolic");
    EXPECT_EQ(e.systolic.rows, 32u);
    EXPECT_EQ(e.systolic.cols, 64u);  // default
    EXPECT_EQ(e.systolic.dataflow, SystolicDataflow::kOutputStationary);
    EXPECT_EQ(e.systolic.macs_per_cell.size(), 1u);  // the map replaces the default
    EXPECT_DOUBLE_EQ(p.die.peak_flops(DType::kFp8), 2.0 * 32 * 64 * 2 * 72 * 1.65e9);
    EXPECT_DOUBLE_EQ(p.die.peak_flops(DType::kBf16), 0.0);
    EXPECT_THROW(load_platform(kDefaultPlatform, {"die.aicore.matrix_engine.kind=tpu"}),
                 ConfigError);
    EXPECT_THROW(load_platform(kDefaultPlatform, {"die.aicore.matrix_engine.rows=32"}),
                 ConfigError);  // cube
    EXPECT_THROW(load_platform(kDefaultPlatform, {"die.aicore.matrix_engine.kind=systolic",
                                                  "die.aicore.matrix_engine.dataflow=xs"}),
                 ConfigError);
    EXPECT_THROW(load_platform(kDefaultPlatform, {"die.aicore.matrix_engine.kind=systolic",
                                                  "die.aicore.matrix_engine.colz=3"}),
                 ConfigError);
}

// AiCoreParams' defaults are the declared ones (aicore_config.cpp, and the systolic engine's keys
// in matrix_engine.cpp): code that builds a core without YAML gets what a platform that leaves the
// keys out gets. Every key but the matrix engine's and the tiling's is required: those are given
// the struct's values (and one fp16 fractal: the struct has none, and a core needs one). The
// systolic keys are read only when the kind is systolic, so a second core chooses it.
TEST(AiCoreParams, StructDefaultsAreTheDeclaredDefaults) {
    const AiCoreParams d;
    const std::string required = R"(cube: {fractals_per_cycle: 1, fractals: {fp16: [16, 16, 16]}}
vector: {cores: 2, bytes_per_cycle: 256, issue_width: 2, cost: {}}
buffers: {l1: 512KiB, l0a: 64KiB, l0b: 64KiB, l0c: 256KiB, ub: 256KiB}
paths_bytes_per_cycle: {aic_gm_read: 100, aic_gm_write: 128, l1_to_l0a: 256, l1_to_l0b: 256,
                        aiv_gm_read: 100, aiv_gm_write: 42, l0c_to_ub: 128, ub_to_l1: 128}
tiling: {}
)";
    const Config c = Config::from_string(required + "matrix_engine: {}\n", "t.yaml");
    const AiCoreParams p = parse_aicore_params(c.root());
    EXPECT_EQ(p.matrix_engine.kind, d.matrix_engine.kind);
    EXPECT_EQ(p.matmul_scheduler, d.matmul_scheduler);

    const Config sc = Config::from_string(required + "matrix_engine: {kind: systolic}\n", "t.yaml");
    const SystolicParams s = parse_aicore_params(sc.root()).matrix_engine.systolic;
    const SystolicParams& ds = d.matrix_engine.systolic;
    EXPECT_EQ(s.rows, ds.rows);
    EXPECT_EQ(s.cols, ds.cols);
    EXPECT_EQ(s.dataflow, ds.dataflow);
    EXPECT_EQ(s.macs_per_cell, ds.macs_per_cell);  // declared: fp16 1, bf16 1
}

// Work per AIC pipeline (Cube cycles) for a GEMM: the split is balanced to within one block.
TEST(Tiling, MatmulSplitAcrossCoresIsBalanced) {
    const AiCoreParams core = default_core();
    const uint32_t cores = 72;
    Tiler tiler(core, cores);
    OpPlan plan = tiler.plan(op_matmul(8192, 8192, 4096, DType::kBf16));
    std::vector<uint64_t> cube(cores, 0), stores(cores, 0);
    for (uint32_t c = 0; c < cores; ++c) {
        ASSERT_TRUE(plan.cube_work[c].tiles) << "core " << c << " got no work";
        Tile t;
        while (plan.cube_work[c].tiles->next(t)) {
            cube[c] += t.cube_cycles;
            stores[c] += t.store_count;
            t = Tile{};
        }
    }
    // 8192/256 x 8192/256 = 1024 output blocks over 72 cores: 14 or 15 each.
    const auto [lo, hi] = std::minmax_element(stores.begin(), stores.end());
    EXPECT_EQ(*lo, 14u);
    EXPECT_EQ(*hi, 15u);
    uint64_t total = 0;
    for (uint64_t s : stores) total += s;
    EXPECT_EQ(total, 1024u);
    const uint64_t block = 256u * 256u * 4096u / 4096u;  // one block's fractals
    const auto [clo, chi] = std::minmax_element(cube.begin(), cube.end());
    EXPECT_LE(*chi - *clo, block);
}

// Every (query tile, key tile) block of every head is computed exactly once; causal masking
// drops exactly the blocks wholly above the diagonal.
void check_attention_coverage(bool causal) {
    const AiCoreParams core = default_core();
    const uint64_t heads = 3, q_len = 640, kv_len = 640, d = 64, tile = 128;
    const uint64_t q_tiles = q_len / tile, kv_tiles = kv_len / tile;
    const uint64_t q_tile_bytes = tile * d * 2;
    trace::Op op;
    op.id = 9;
    op.kind = trace::OpKind::kFusedAttention;
    op.attention = {1, heads, heads, q_len, kv_len, d, causal};
    const uint64_t bytes = heads * q_len * d * 2;
    op.inputs = {{"q", 0, bytes, StreamClass::kActivation},
                 {"k", 1ULL << 30, bytes, StreamClass::kActivation},
                 {"v", 2ULL << 30, bytes, StreamClass::kActivation}};
    op.outputs = {{"o", 3ULL << 30, bytes, StreamClass::kActivation}};
    Tiler tiler(core, 4);
    OpPlan plan = tiler.plan(op);
    std::vector<int> seen(heads * q_tiles * kv_tiles, 0);
    for (auto& w : plan.cube_work) {
        if (!w.tiles) continue;
        Tile t;
        int64_t unit = -1;  // head * q_tiles + q tile, from the Q load that opens each unit
        while (w.tiles->next(t)) {
            std::size_t i = 0;
            if (t.starts_output_block) {
                ASSERT_GE(t.load_count, 3u);
                unit = static_cast<int64_t>(t.loads[0].addr / q_tile_bytes);
                i = 1;
            }
            ASSERT_GE(unit, 0);
            const uint64_t kv_index =
                (t.loads[i].addr - (1ULL << 30)) / q_tile_bytes;  // head * kv_tiles + kv
            const uint64_t head = static_cast<uint64_t>(unit) / q_tiles,
                           qt = static_cast<uint64_t>(unit) % q_tiles;
            ASSERT_EQ(kv_index / kv_tiles, head) << "a Q tile met another head's K";
            ++seen[(head * q_tiles + qt) * kv_tiles + kv_index % kv_tiles];
            t = Tile{};
        }
    }
    for (uint64_t h = 0; h < heads; ++h) {
        for (uint64_t qt = 0; qt < q_tiles; ++qt) {
            for (uint64_t kv = 0; kv < kv_tiles; ++kv) {
                // With the mask, query i sees keys 0..i (q_len == kv_len): block (qt, kv) has work
                // iff kv <= qt.
                const int expected = !causal || kv <= qt ? 1 : 0;
                EXPECT_EQ(seen[(h * q_tiles + qt) * kv_tiles + kv], expected)
                    << "head " << h << " q tile " << qt << " kv tile " << kv;
            }
        }
    }
}

TEST(Tiling, AttentionCoversEveryQueryKeyBlockOnce) { check_attention_coverage(false); }
TEST(Tiling, CausalAttentionCoversEveryBlockOnOrBelowTheDiagonalOnce) {
    check_attention_coverage(true);
}

// Grouped-query decode: the 8 query heads that share a K/V head go into one Q tile (8 rows, not
// 1), so each K/V tile of a group is loaded once and the Cube works on 8-row tiles: a sixteenth
// of the tiles of the same shape with a K/V head per query head.
TEST(Tiling, GroupedQueryDecodeStacksAGroupsHeadsIntoOneTile) {
    const AiCoreParams core = default_core();
    const uint64_t batch = 2, heads = 64, kv_heads = 8, kv_len = 1024, d = 128;
    auto tiles_of = [&](uint64_t kvh, uint64_t& cube, std::vector<uint64_t>& k_loads) {
        trace::Op op;
        op.id = 3;
        op.kind = trace::OpKind::kFusedAttention;
        op.attention = {batch, heads, kvh, 1, kv_len, d, true};
        const uint64_t q_bytes = batch * heads * d * 2, kv_bytes = batch * kvh * kv_len * d * 2;
        op.inputs = {{"q", 0, q_bytes, StreamClass::kActivation},
                     {"k", 1ULL << 30, kv_bytes, StreamClass::kActivation},
                     {"v", 2ULL << 30, kv_bytes, StreamClass::kActivation}};
        op.outputs = {{"o", 3ULL << 30, q_bytes, StreamClass::kActivation}};
        Tiler tiler(core, 4);
        OpPlan plan = tiler.plan(op);
        uint64_t n = 0;
        for (auto& w : plan.cube_work) {
            if (!w.tiles) continue;
            Tile t;
            while (w.tiles->next(t)) {
                ++n;
                cube += t.cube_cycles;
                k_loads.push_back(t.loads[t.starts_output_block ? 1 : 0].addr);
                if (t.starts_output_block) {
                    // The Q tile: the group's 8 heads of one query each (bf16).
                    EXPECT_EQ(t.loads[0].bytes, (kvh < heads ? heads / kvh : 1) * d * 2);
                }
                t = Tile{};
            }
        }
        return n;
    };
    uint64_t gqa_cube = 0, mha_cube = 0;
    std::vector<uint64_t> gqa_k, mha_k;
    const uint64_t gqa = tiles_of(kv_heads, gqa_cube, gqa_k);
    const uint64_t mha = tiles_of(heads, mha_cube, mha_k);
    EXPECT_EQ(gqa, batch * kv_heads * kv_len / 128);  // one unit per (sequence, K/V head)
    EXPECT_EQ(mha, batch * heads * kv_len / 128);
    // Each K tile of the grouped shape is loaded exactly once.
    std::sort(gqa_k.begin(), gqa_k.end());
    EXPECT_EQ(std::unique(gqa_k.begin(), gqa_k.end()), gqa_k.end());
    // 8 rows cost what 1 row costs on a 16-row Cube: the grouped op takes an eighth of the cycles.
    EXPECT_EQ(gqa_cube * 8, mha_cube);
}

}  // namespace
}  // namespace asim
