// Collective engine: every algorithm gives the true result in the functional mode; uncontended
// ring, halving-doubling and all-gather match the alpha-beta formulas; comm time per die; bad
// groups are bad input; a ring whose link breaks either reroutes or stops with the watchdog.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "models/common/errors.h"
#include "models/interconnect/collectives/collective_engine.h"
#include "tests/interconnect/test_links.h"

namespace asim {
namespace {

TopologyParams ring(uint32_t dies, bool bidirectional, LinkParams link) {
    return test::ring_topology(dies, bidirectional, link);
}

TopologyParams full_mesh(uint32_t dies, LinkParams link) {
    TopologyParams t = ring(dies, true, link);
    t.node_topology = "full_mesh";
    return t;
}

TopologyParams clos(uint32_t nodes, uint32_t per_node) {
    TopologyParams t;
    t.dies = nodes * per_node;
    t.dies_per_node = per_node;
    t.node_topology = "switch";
    t.node_params.set("planes", int64_t{2});
    t.die_link = test::ub_link();
    t.scale_out = "clos";
    t.scale_out_params.set("l2_per_plane", int64_t{2});
    t.uplink = test::ub_link();
    return t;
}

std::vector<uint32_t> iota(uint32_t n) {
    std::vector<uint32_t> v(n);
    std::iota(v.begin(), v.end(), 0u);
    return v;
}

double expected(CollectiveOp op, uint32_t p, uint64_t bytes, uint32_t rank, uint64_t i,
                uint32_t root) {
    auto owner = [&](uint64_t byte) {
        uint32_t r = 0;
        while (!(byte >= bytes * r / p && byte < bytes * (r + 1) / p)) ++r;
        return r;
    };
    double sum = 0;
    for (uint32_t r = 0; r < p; ++r) sum += CollectiveEngine::initial_value(r, i);
    switch (op) {
        case CollectiveOp::allreduce:
            return sum;
        case CollectiveOp::reducescatter:
            return owner(i) == rank ? sum : std::nan("");
        case CollectiveOp::allgather:
            return CollectiveEngine::initial_value(owner(i), i);
        case CollectiveOp::alltoallv:
            return std::nan("");  // checked in its own test
        case CollectiveOp::alltoall: {
            const uint64_t block = bytes / p;
            if (i >= block * p) return std::nan("");
            const uint32_t from = static_cast<uint32_t>(i / block);
            return CollectiveEngine::initial_value(from, rank * block + i % block);
        }
        case CollectiveOp::broadcast:
            return CollectiveEngine::initial_value(root, i);
        case CollectiveOp::sendrecv:
            return rank == 1 ? CollectiveEngine::initial_value(0, i) : std::nan("");
    }
    return 0;
}

void check_functional(const TopologyParams& params, CollectiveOp op, CollectiveAlgo algo,
                      uint32_t ranks, uint64_t bytes, uint32_t root = 0,
                      uint64_t notify_bytes = 0) {
    const Topology t(params);
    FlowNetwork net(t, 4);
    CollectiveParams cp;
    cp.chunk_bytes = 16;
    cp.reduce_bytes_per_s = 1e12;
    cp.notify_bytes = notify_bytes;
    CollectiveEngine engine(net, cp, true);
    CollectiveRequest req;
    req.op = op;
    req.algo = algo;
    req.group = iota(ranks);
    req.bytes = bytes;
    req.root = root;
    const uint32_t id = engine.start(req, 0);
    engine.run();
    const std::string what =
        std::string(to_string(op)) + "/" + to_string(algo) + " p=" + std::to_string(ranks);
    for (uint32_t r = 0; r < ranks; ++r) {
        const auto& b = engine.buffer(id, r);
        for (uint64_t i = 0; i < bytes; ++i) {
            const double want = expected(op, ranks, bytes, r, i, root);
            if (std::isnan(want)) continue;
            ASSERT_EQ(b[i], want) << what << " rank " << r << " byte " << i;
        }
    }
    EXPECT_GT(engine.result(id).end_ps, 0) << what;
}

TEST(Collectives, EveryAlgorithmGivesTheTrueResult) {
    using A = CollectiveAlgo;
    using O = CollectiveOp;
    const LinkParams l = test::ub_link();
    for (const uint32_t p : {2u, 5u, 8u}) {
        for (const A a : {A::ring, A::ring_pipelined, A::halving_doubling, A::mesh, A::double_ring})
            check_functional(full_mesh(p, l), O::allreduce, a, p, 1000);
        for (const A a : {A::ring, A::ring_pipelined, A::mesh}) {
            check_functional(ring(p, true, l), O::reducescatter, a, p, 997);
            check_functional(ring(p, true, l), O::allgather, a, p, 997);
        }
        for (const A a : {A::pairwise, A::direct})
            check_functional(full_mesh(p, l), O::alltoall, a, p, 40 * p);
        for (const A a : {A::ring_pipelined, A::ring, A::mesh})
            check_functional(full_mesh(p, l), O::broadcast, a, p, 333, p - 1);
    }
    check_functional(full_mesh(6, l), O::allreduce, A::halving_doubling, 6,
                     1000);  // not a power of two
    check_functional(full_mesh(2, l), O::sendrecv, A::direct, 2, 100);
    check_functional(clos(3, 4), O::allreduce, A::hierarchical, 12, 1000);
    check_functional(clos(3, 4), O::allreduce, A::ring, 12, 1000);
}

// A rank with more than 16 peers (all-to-all, the mesh) finds its per-peer state through an
// index by peer rank instead of a search: the results must be the same, ready flags included.
TEST(Collectives, RanksWithManyPeersGiveTheTrueResult) {
    using A = CollectiveAlgo;
    using O = CollectiveOp;
    const LinkParams l = test::ub_link();
    const uint32_t p = 24;
    for (const uint64_t notify : {uint64_t{0}, uint64_t{8}}) {
        for (const A a : {A::pairwise, A::direct})
            check_functional(full_mesh(p, l), O::alltoall, a, p, 40 * p, 0, notify);
        check_functional(full_mesh(p, l), O::allreduce, A::mesh, p, 1000, 0, notify);
        check_functional(full_mesh(p, l), O::allreduce, A::ring, p, 1000, 0, notify);
    }
}

TEST(Collectives, AllToAllVDeliversEveryBlockToItsSlot) {
    const uint32_t p = 5;
    std::vector<uint64_t> counts(p * p);
    for (uint32_t i = 0; i < p; ++i)
        for (uint32_t j = 0; j < p; ++j)
            counts[i * p + j] = (i == j) ? 0 : 1 + (i * 7 + j * 3) % 11;
    for (const CollectiveAlgo algo : {CollectiveAlgo::pairwise, CollectiveAlgo::direct}) {
        const Topology t(full_mesh(p, test::ub_link()));
        FlowNetwork net(t, 1);
        CollectiveEngine engine(net, CollectiveParams{}, true);
        CollectiveRequest req;
        req.op = CollectiveOp::alltoallv;
        req.algo = algo;
        req.group = iota(p);
        req.counts = counts;
        const uint32_t id = engine.start(req, 0);
        engine.run();
        for (uint32_t to = 0; to < p; ++to) {
            uint64_t recv = 0;
            for (uint32_t from = 0; from < p; ++from) {
                uint64_t send = 0;
                for (uint32_t k = 0; k < to; ++k) send += counts[from * p + k];
                for (uint64_t b = 0; b < counts[from * p + to]; ++b)
                    ASSERT_EQ(engine.buffer(id, to)[recv + b],
                              CollectiveEngine::initial_value(from, send + b))
                        << to_string(algo) << " " << from << "->" << to << " byte " << b;
                recv += counts[from * p + to];
            }
        }
    }
    // Counts of the wrong shape are bad input.
    const Topology t(full_mesh(p, test::ub_link()));
    FlowNetwork net(t, 1);
    CollectiveEngine engine(net, CollectiveParams{});
    EXPECT_THROW(
        engine.start({CollectiveOp::alltoallv, CollectiveAlgo::pairwise, iota(p), 0, 0, {1, 2, 3}},
                     0),
        InputError);
}

// Alpha-beta: alpha = 1 us per step, beta = 25 GB/s (the refdata's decimal convention).
double run_time_us(const TopologyParams& params, CollectiveOp op, CollectiveAlgo algo, uint32_t p,
                   uint64_t bytes) {
    const Topology t(params);
    FlowNetwork net(t, 1);
    CollectiveEngine engine(net, CollectiveParams{});
    CollectiveRequest req;
    req.op = op;
    req.algo = algo;
    req.group = iota(p);
    req.bytes = bytes;
    const uint32_t id = engine.start(req, 0);
    engine.run();
    return static_cast<double>(engine.result(id).end_ps - engine.result(id).start_ps) * 1e-6;
}

TEST(Collectives, UncontendedRingHalvingDoublingAndAllGatherMatchAlphaBeta) {
    const double alpha = 1.0, beta = 25e9;
    const LinkParams l = test::alpha_beta_link(1'000'000);
    for (const uint32_t p : {8u, 64u}) {
        for (const uint64_t bytes : {1ull << 20, 64ull << 20}) {
            const double s = static_cast<double>(bytes);
            const double ring_ab = 2 * (p - 1) * alpha + 2.0 * (p - 1) / p * s / beta * 1e6;
            const double hd_ab = 2 * std::log2(p) * alpha + 2.0 * (p - 1) / p * s / beta * 1e6;
            const double ag_ab = (p - 1) * alpha + 1.0 * (p - 1) / p * s / beta * 1e6;
            const double ring_t = run_time_us(ring(p, false, l), CollectiveOp::allreduce,
                                              CollectiveAlgo::ring, p, bytes);
            const double hd_t = run_time_us(full_mesh(p, l), CollectiveOp::allreduce,
                                            CollectiveAlgo::halving_doubling, p, bytes);
            const double ag_t = run_time_us(ring(p, false, l), CollectiveOp::allgather,
                                            CollectiveAlgo::ring, p, bytes);
            EXPECT_NEAR(ring_t / ring_ab, 1.0, 0.02) << p << " " << bytes;
            EXPECT_NEAR(hd_t / hd_ab, 1.0, 0.02) << p << " " << bytes;
            EXPECT_NEAR(ag_t / ag_ab, 1.0, 0.02) << p << " " << bytes;
        }
    }
    // The refdata row "1MiB, 8 NPUs, 25e9 B/s, alpha 1 us": 87.40032 us.
    EXPECT_NEAR(
        run_time_us(ring(8, false, l), CollectiveOp::allreduce, CollectiveAlgo::ring, 8, 1 << 20),
        87.40032, 0.01);
}

TEST(Collectives, PipelinedRingHidesTheReductionThatThePlainRingWaitsFor) {
    const LinkParams l = test::alpha_beta_link(100'000);
    auto run = [&](CollectiveAlgo algo) {
        const Topology t(ring(8, false, l));
        FlowNetwork net(t, 1);
        CollectiveParams cp;
        cp.chunk_bytes = 1 << 20;
        cp.reduce_bytes_per_s =
            25e9;  // as slow as the link: reduction is half the plain ring's time
        CollectiveEngine engine(net, cp);
        const uint32_t id =
            engine.start({CollectiveOp::allreduce, algo, iota(8), 64ull << 20, 0, {}}, 0);
        engine.run();
        return engine.result(id).end_ps;
    };
    const int64_t plain = run(CollectiveAlgo::ring),
                  pipelined = run(CollectiveAlgo::ring_pipelined);
    EXPECT_LT(static_cast<double>(pipelined), 0.75 * static_cast<double>(plain));
}

TEST(Collectives, CommTimeIsAccountedPerDie) {
    const Topology t(ring(8, false, test::alpha_beta_link(1'000'000)));
    FlowNetwork net(t, 1);
    CollectiveEngine engine(net, CollectiveParams{});
    std::vector<uint32_t> first_half{0, 1, 2, 3};
    bool called = false;
    engine.start({CollectiveOp::allreduce, CollectiveAlgo::mesh, first_half, 1 << 20, 0, {}},
                 5'000'000, [&](const CollectiveResult& r) {
                     called = true;
                     EXPECT_EQ(r.start_ps, 5'000'000);
                 });
    engine.run();
    EXPECT_TRUE(called);
    for (uint32_t d = 0; d < 4; ++d) EXPECT_GT(engine.comm_time_ps()[d], 0);
    for (uint32_t d = 4; d < 8; ++d) EXPECT_EQ(engine.comm_time_ps()[d], 0);
}

TEST(Collectives, BadGroupsAreBadInput) {
    const Topology t(clos(2, 4));
    FlowNetwork net(t, 1);
    CollectiveEngine engine(net, CollectiveParams{});
    EXPECT_THROW(
        engine.start({CollectiveOp::allreduce, CollectiveAlgo::ring, {0, 1, 9}, 1024, 0, {}}, 0),
        InputError);
    EXPECT_THROW(
        engine.start({CollectiveOp::allreduce, CollectiveAlgo::ring, {0, 1, 1}, 1024, 0, {}}, 0),
        InputError);
    EXPECT_THROW(
        engine.start(
            {CollectiveOp::allreduce, CollectiveAlgo::hierarchical, {0, 1, 4}, 1024, 0, {}}, 0),
        InputError);
    EXPECT_THROW(
        engine.start({CollectiveOp::alltoall, CollectiveAlgo::ring, {0, 1}, 1024, 0, {}}, 0),
        InputError);
}

TEST(Collectives, BrokenRingWithoutAlternativeStopsWithTheWatchdog) {
    const Topology t(ring(4, false, test::alpha_beta_link(1'000'000)));
    FlowNetwork net(t, 1);
    net.set_link_down(static_cast<uint32_t>(t.link_between(2, 3)), 0);
    CollectiveEngine engine(net, CollectiveParams{});
    engine.start({CollectiveOp::allreduce, CollectiveAlgo::ring, iota(4), 1 << 20, 0, {}}, 0);
    try {
        engine.run();
        FAIL() << "expected the watchdog";
    } catch (const SimulationError& e) {
        EXPECT_NE(std::string(e.what()).find("die2 -> die3"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace asim
