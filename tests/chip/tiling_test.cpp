// Tiler: tiles cover the op exactly once, fit the buffers, and bad ops are refused; the split_k
// scheduler covers every K step of every block once and adds the partial sums; the block order
// groups block rows when that shrinks a wave's footprint.
#include <gtest/gtest.h>

#include <set>

#include "models/chip/aicore/tiling.h"
#include "models/common/errors.h"
#include "platforms/platform.h"

namespace asim {
namespace {

trace::Op matmul(uint64_t m, uint64_t n, uint64_t k) {
    trace::Op op;
    op.kind = trace::OpKind::kMatmul;
    op.matmul = {1, m, n, k, false, false};
    op.inputs = {{"a", 0, m * k * 2, StreamClass::kActivation},
                 {"b", 1ULL << 32, k * n * 2, StreamClass::kWeight}};
    op.outputs = {{"c", 1ULL << 33, m * n * 2, StreamClass::kActivation}};
    return op;
}

AiCoreParams default_core() { return load_platform(kDefaultPlatform, {}).die.core; }

TEST(Tiling, MatmulCubeCyclesEqualFractalCount) {
    const AiCoreParams core = default_core();
    Tiler tiler(core, 8);
    const trace::Op op = matmul(1000, 520, 300);  // ragged in every dimension
    OpPlan plan = tiler.plan(op);
    uint64_t cube = 0, loaded = 0, stored = 0;
    for (auto& w : plan.cube_work) {
        if (!w.tiles) continue;
        Tile t;
        while (w.tiles->next(t)) {
            cube += t.cube_cycles;
            for (std::size_t i = 0; i < t.load_count; ++i) loaded += t.loads[i].bytes;
            for (std::size_t i = 0; i < t.store_count; ++i) stored += t.stores[i].bytes;
            t = Tile{};
        }
    }
    // Every output element is stored exactly once.
    EXPECT_EQ(stored, 1000u * 520u * 2u);
    // Cube cycles are at least the unpadded fractal count and at most the padded one per block.
    const double ideal = 1000.0 * 520.0 * 300.0 / (16.0 * 16.0 * 16.0);
    EXPECT_GE(static_cast<double>(cube), ideal);
    EXPECT_LE(static_cast<double>(cube), ideal * 1.3);
    EXPECT_GE(loaded, (1000u * 300u + 300u * 520u) * 2u);
}

TEST(Tiling, MatmulTilesFitL1) {
    AiCoreParams core = default_core();
    Tiler tiler(core, 72);
    OpPlan plan = tiler.plan(matmul(8192, 8192, 8192));
    Tile t;
    ASSERT_TRUE(plan.cube_work[0].tiles->next(t));
    uint64_t bytes = 0;
    for (std::size_t i = 0; i < t.load_count; ++i) bytes += t.loads[i].bytes;
    EXPECT_LE(2 * bytes, core.l1_bytes);  // double-buffered
}

TEST(Tiling, RefusesCollectiveOnOneDie) {
    const AiCoreParams core = default_core();
    Tiler tiler(core, 4);
    trace::Op op;
    op.kind = trace::OpKind::kCollective;
    op.id = 7;
    try {
        tiler.plan(op);
        FAIL() << "collective accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("op 7"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("supernode"), std::string::npos) << e.what();
    }
}

TEST(Tiling, RefusesMatmulWithoutTensors) {
    const AiCoreParams core = default_core();
    Tiler tiler(core, 4);
    trace::Op op = matmul(64, 64, 64);
    op.inputs.clear();
    EXPECT_THROW(tiler.plan(op), InputError);
}

TEST(Tiling, VectorOpCoversEveryElementOnce) {
    const AiCoreParams core = default_core();
    Tiler tiler(core, 3);
    trace::Op op;
    op.kind = trace::OpKind::kElementwise;
    op.vector = {"add", 1, 1'000'003};
    op.inputs = {{"a", 0, 2'000'006, StreamClass::kActivation},
                 {"b", 1ULL << 30, 2'000'006, StreamClass::kActivation}};
    op.outputs = {{"c", 1ULL << 31, 2'000'006, StreamClass::kActivation}};
    OpPlan plan = tiler.plan(op);
    uint64_t loaded = 0, stored = 0, cycles = 0;
    for (auto& w : plan.vector_work) {
        if (!w.tiles) continue;
        Tile t;
        while (w.tiles->next(t)) {
            for (std::size_t i = 0; i < t.load_count; ++i) loaded += t.loads[i].bytes;
            for (std::size_t i = 0; i < t.store_count; ++i) stored += t.stores[i].bytes;
            cycles += t.vector_cycles;
            t = Tile{};
        }
    }
    EXPECT_EQ(loaded, 2u * 2'000'006u);
    EXPECT_EQ(stored, 2'000'006u);
    // add costs one pass: 1e6 elements over 256 bf16 lanes per cycle (256 B x 2 issue / 2 B).
    EXPECT_NEAR(static_cast<double>(cycles), 1'000'003.0 / 256.0, 6.0 * 4);
}

}  // namespace
}  // namespace asim

namespace asim {
namespace {

// The dense blocked layout: on ragged shapes every element of A, B and C has its own bytes inside
// its tensor, and the tiles' loads and stores are exactly the layout's tiles (the functional run
// found aliasing here when edge blocks took a full block's place and wrapped).
TEST(Tiling, MatmulLayoutIsDenseOnRaggedShapes) {
    const AiCoreParams core = default_core();
    Tiler tiler(core, 8);
    const trace::Op op = matmul(300, 200, 100);
    OpPlan plan = tiler.plan(op);
    ASSERT_TRUE(plan.matmul_layout);
    const MatmulLayout& l = *plan.matmul_layout;
    std::set<uint64_t> a, b, c;
    for (uint64_t i = 0; i < l.m; ++i) {
        for (uint64_t kk = 0; kk < l.k; ++kk) a.insert(l.a_addr(0, i, kk));
    }
    for (uint64_t kk = 0; kk < l.k; ++kk) {
        for (uint64_t j = 0; j < l.n; ++j) b.insert(l.b_addr(0, kk, j));
    }
    for (uint64_t i = 0; i < l.m; ++i) {
        for (uint64_t j = 0; j < l.n; ++j) c.insert(l.c_addr(0, i, j));
    }
    EXPECT_EQ(a.size(), 300u * 100u);
    EXPECT_EQ(b.size(), 100u * 200u);
    EXPECT_EQ(c.size(), 300u * 200u);
    EXPECT_EQ(*a.begin(), op.inputs[0].addr);
    EXPECT_EQ(*a.rbegin(), op.inputs[0].addr + op.inputs[0].bytes -
                               2);  // packed: the last element ends the tensor
    EXPECT_EQ(*b.rbegin(), op.inputs[1].addr + op.inputs[1].bytes - 2);
    EXPECT_EQ(*c.rbegin(), op.outputs[0].addr + op.outputs[0].bytes - 2);
    // Every tile the pipelines load or store starts where the layout puts its first element.
    uint64_t stores = 0;
    for (auto& w : plan.cube_work) {
        if (!w.tiles) continue;
        Tile t;
        while (w.tiles->next(t)) {
            EXPECT_TRUE(a.count(t.loads[0].addr)) << t.loads[0].addr;
            EXPECT_TRUE(b.count(t.loads[1].addr)) << t.loads[1].addr;
            if (t.store_count) {
                EXPECT_TRUE(c.count(t.stores[0].addr));
                ++stores;
            }
            t = Tile{};
        }
    }
    EXPECT_EQ(stores, l.mb * l.nb);
}

}  // namespace
}  // namespace asim

namespace asim {
namespace {

struct MatmulTally {
    std::set<std::pair<uint64_t, uint64_t>> a_b_steps;  // (A tile, B tile) of every Cube tile
    uint64_t cube_tiles = 0, plain_store_bytes = 0, atomic_stores = 0, atomic_bytes = 0;
};

MatmulTally tally(std::vector<PipelineWork>& work) {
    MatmulTally t;
    for (auto& w : work) {
        if (!w.tiles) continue;
        Tile tile;
        while (w.tiles->next(tile)) {
            ++t.cube_tiles;
            t.a_b_steps.insert({tile.loads[0].addr, tile.loads[1].addr});
            for (std::size_t i = 0; i < tile.store_count; ++i) {
                if (tile.atomic_add) {
                    ++t.atomic_stores;
                    t.atomic_bytes += tile.stores[i].bytes;
                } else {
                    t.plain_store_bytes += tile.stores[i].bytes;
                }
            }
            tile = Tile{};
        }
    }
    return t;
}

uint64_t stage_store_bytes(PlanStage& stage, Tile::Function want) {
    uint64_t bytes = 0;
    for (auto& w : stage.vector_work) {
        if (!w.tiles) continue;
        Tile tile;
        while (w.tiles->next(tile)) {
            EXPECT_EQ(tile.function, want);
            for (std::size_t i = 0; i < tile.store_count; ++i) bytes += tile.stores[i].bytes;
            tile = Tile{};
        }
    }
    return bytes;
}

// Llama-3-70B's TP-8 qkv_proj: 16 x 5 blocks of 256 x 256 on 72 cores, 64 K steps each. One
// whole wave of 72 blocks; the 8 x 64 K steps of the last 8 are spread over the 72 cores (7 or
// 8 each; the block boundaries fall on core boundaries here, so 9 pieces per block).
TEST(Tiling, SplitKCoversEveryKStepOfEveryBlockOnce) {
    const AiCoreParams core = default_core();
    ASSERT_EQ(core.matmul_scheduler, "split_k");
    const Workspace ws{1ULL << 40, 72ULL * core.l0c_bytes};
    Tiler tiler(core, 72, ws);
    const uint64_t m = 4096, n = 1280, k = 8192;
    OpPlan plan = tiler.plan(matmul(m, n, k));
    const MatmulLayout l = *plan.matmul_layout;
    ASSERT_EQ(l.mb * l.nb, 80u);
    const MatmulTally t = tally(plan.cube_work);
    EXPECT_EQ(t.cube_tiles, l.mb * l.nb * l.kb);             // every (block, K step) once ...
    EXPECT_EQ(t.a_b_steps.size(), l.mb * l.nb * l.kb);       // ... and no pair twice
    EXPECT_EQ(t.atomic_stores, 8u * 9u);                     // 72 pieces, one per core
    EXPECT_EQ(t.atomic_bytes, 8u * 9u * 256u * 256u * 4u);   // fp32 partial sums
    EXPECT_EQ(t.plain_store_bytes, 72u * 256u * 256u * 2u);  // the whole wave, bf16
    ASSERT_TRUE(plan.prologue && plan.epilogue);
    EXPECT_EQ(stage_store_bytes(*plan.prologue, Tile::Function::kZeroFill), 8u * 256u * 256u * 4u);
    // The conversion writes the split blocks' bf16 results: with the whole blocks, all of C once.
    EXPECT_EQ(stage_store_bytes(*plan.epilogue, Tile::Function::kCastFrom32) + t.plain_store_bytes,
              m * n * 2);
}

TEST(Tiling, BlockedSchedulerKeepsEveryBlockWhole) {
    AiCoreParams core = default_core();
    core.matmul_scheduler = "blocked";
    Tiler tiler(core, 72, Workspace{1ULL << 40, 72ULL * core.l0c_bytes});
    OpPlan plan = tiler.plan(matmul(4096, 1280, 8192));
    const MatmulTally t = tally(plan.cube_work);
    EXPECT_FALSE(plan.prologue);
    EXPECT_FALSE(plan.epilogue);
    EXPECT_EQ(t.atomic_stores, 0u);
    EXPECT_EQ(t.plain_store_bytes, 4096u * 1280u * 2u);
}

TEST(Tiling, SplitKSplitsOnlyWhenItPays) {
    MatmulCost c;
    c.cores = 72;
    c.step_cycles = 2048;
    c.partial_cycles = 2048;
    c.fixup_cycles = 20;
    c.stage_cycles = 500;
    c.blocks = 144;  // whole waves: nothing to gain
    c.k_steps = 64;
    EXPECT_FALSE(schedule_split_k(c).split_rest);
    c.blocks = 80;  // 8 blocks in the last wave, 64 K steps: 7-8 steps per core instead of 64
    const MatmulSchedule s = schedule_split_k(c);
    EXPECT_EQ(s.whole_blocks, 72u);
    EXPECT_TRUE(s.split_rest);
    c.k_steps = 2;  // 2 K steps: one step less does not pay for two partial sums' stores
    EXPECT_FALSE(schedule_split_k(c).split_rest);
    c.k_steps = 64;
    c.blocks = 20;  // fewer blocks than cores: all of them split
    EXPECT_EQ(schedule_split_k(c).whole_blocks, 0u);
    EXPECT_TRUE(schedule_split_k(c).split_rest);
    c.blocks = 256 + 40;  // 40 blocks left over (more than half the cores): 36 steps per core
    EXPECT_EQ(schedule_split_k(c).whole_blocks, 4u * 72u);
    EXPECT_TRUE(schedule_split_k(c).split_rest);
    EXPECT_FALSE(schedule_blocked(c).split_rest);
}

// 4096^3: 256 blocks on 72 cores, 40 left over after 3 waves; their 40 x 32 K steps go 17-18 to
// a core, so some cores' ranges cross a block boundary (two pieces, two atomic stores).
TEST(Tiling, SplitKRangesMayCrossABlockBoundary) {
    const AiCoreParams core = default_core();
    Tiler tiler(core, 72, Workspace{1ULL << 40, 72ULL * core.l0c_bytes});
    OpPlan plan = tiler.plan(matmul(4096, 4096, 4096));
    const MatmulLayout l = *plan.matmul_layout;
    ASSERT_EQ(l.mb * l.nb, 256u);
    const MatmulTally t = tally(plan.cube_work);
    EXPECT_EQ(t.cube_tiles, l.mb * l.nb * l.kb);
    EXPECT_EQ(t.a_b_steps.size(), l.mb * l.nb * l.kb);
    EXPECT_GT(t.atomic_stores, 72u);
    EXPECT_LT(t.atomic_stores, 72u + 40u);
    EXPECT_EQ(t.plain_store_bytes, 216u * 256u * 256u * 2u);
}

// The cores take blocks in groups of block rows (CATLASS's Zn swizzle) when that shrinks what a
// wave of 72 concurrent blocks reads: 8192^3 is 32 x 32 blocks; row-major, the first wave would
// cover 3 block rows and all 32 block columns (all of B), grouped it covers 9 x 8. Every block
// is still computed exactly once.
TEST(Tiling, MatmulBlockOrderGroupsRowsForL2Reuse) {
    const AiCoreParams core = default_core();
    Tiler tiler(core, 72);  // no workspace: every block whole
    OpPlan plan = tiler.plan(matmul(8192, 8192, 8192));
    const MatmulLayout l = *plan.matmul_layout;
    ASSERT_EQ(l.mb * l.nb, 1024u);
    std::set<uint64_t> a_first, b_first, c;
    uint64_t stores = 0;
    for (auto& w : plan.cube_work) {
        ASSERT_TRUE(w.tiles);
        Tile t;
        bool first = true;
        while (w.tiles->next(t)) {
            if (first) {  // the core's first block, K step 0: the first wave
                a_first.insert(t.loads[0].addr);
                b_first.insert(t.loads[1].addr);
                first = false;
            }
            if (t.store_count) {
                c.insert(t.stores[0].addr);
                ++stores;
            }
            t = Tile{};
        }
    }
    EXPECT_EQ(a_first.size(), 9u);  // block rows of the first wave
    EXPECT_EQ(b_first.size(), 8u);  // block columns
    EXPECT_EQ(stores, 1024u);
    EXPECT_EQ(c.size(), 1024u);
}

// Where grouping does not shrink a wave's footprint the order stays row-major: 16 x 5 blocks,
// one wave of 72 covers rows 0-14 and all 5 columns either way.
TEST(Tiling, MatmulBlockOrderStaysRowMajorWhenGroupingDoesNotPay) {
    const AiCoreParams core = default_core();
    Tiler tiler(core, 72);
    OpPlan plan = tiler.plan(matmul(4096, 1280, 8192));
    const MatmulLayout l = *plan.matmul_layout;
    ASSERT_EQ(l.nb, 5u);
    for (uint64_t c = 0; c < 72; ++c) {
        Tile t;
        ASSERT_TRUE(plan.cube_work[c].tiles->next(t));
        EXPECT_EQ(t.loads[0].addr, l.a_tile(0, c / l.nb, 0)) << "core " << c;
        EXPECT_EQ(t.loads[1].addr, l.b_tile(0, c % l.nb, 0)) << "core " << c;
    }
}

TEST(Tiling, SplitKFallsBackToWholeBlocksWithoutAWorkspace) {
    const AiCoreParams core = default_core();
    Tiler tiler(core, 72);  // no workspace, bf16 C: the partial sums have nowhere to meet
    OpPlan plan = tiler.plan(matmul(4096, 1280, 8192));
    EXPECT_FALSE(plan.prologue);
    EXPECT_EQ(tally(plan.cube_work).atomic_stores, 0u);
}

}  // namespace
}  // namespace asim
