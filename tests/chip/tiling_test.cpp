// Foundation tiler: tiles cover the op exactly once, fit the buffers, and bad ops are refused.
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
    op.inputs = {{"a", 0, m * k * 2, StreamClass::kActivation}, {"b", 1ULL << 32, k * n * 2, StreamClass::kWeight}};
    op.outputs = {{"c", 1ULL << 33, m * n * 2, StreamClass::kActivation}};
    return op;
}

AiCoreParams default_core() { return load_platform(kDefaultPlatform, {}).die.core; }

TEST(Tiling, MatmulCubeCyclesEqualFractalCount) {
    const AiCoreParams core = default_core();
    FoundationTiler tiler(core, 8);
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
    FoundationTiler tiler(core, 72);
    OpPlan plan = tiler.plan(matmul(8192, 8192, 8192));
    Tile t;
    ASSERT_TRUE(plan.cube_work[0].tiles->next(t));
    uint64_t bytes = 0;
    for (std::size_t i = 0; i < t.load_count; ++i) bytes += t.loads[i].bytes;
    EXPECT_LE(2 * bytes, core.l1_bytes);  // double-buffered
}

TEST(Tiling, RefusesCollectiveOnOneDie) {
    const AiCoreParams core = default_core();
    FoundationTiler tiler(core, 4);
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
    FoundationTiler tiler(core, 4);
    trace::Op op = matmul(64, 64, 64);
    op.inputs.clear();
    EXPECT_THROW(tiler.plan(op), InputError);
}

TEST(Tiling, VectorOpCoversEveryElementOnce) {
    const AiCoreParams core = default_core();
    FoundationTiler tiler(core, 3);
    trace::Op op;
    op.kind = trace::OpKind::kElementwise;
    op.vector = {"add", 1, 1'000'003};
    op.inputs = {{"a", 0, 2'000'006, StreamClass::kActivation}, {"b", 1ULL << 30, 2'000'006, StreamClass::kActivation}};
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
    FoundationTiler tiler(core, 8);
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
    EXPECT_EQ(*a.rbegin(), op.inputs[0].addr + op.inputs[0].bytes - 2);  // packed: the last element ends the tensor
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
