// A collective algorithm registered from a test file (issue 14): selectable by name from the
// platform's YAML, offered for the ops it declares, and run by the engine like a built-in one.
#include <gtest/gtest.h>

#include <numeric>

#include "models/common/errors.h"
#include "models/interconnect/collectives/collective_engine.h"
#include "platforms/platform.h"
#include "tests/interconnect/test_links.h"

namespace asim {
namespace {

// All-reduce through rank 0: every other rank sends its buffer to rank 0 (step 0), which reduces
// them all and sends the sum back (its step 0); the others wait for it (their step 1).
class StarAllReduce final : public Schedule {
public:
    StarAllReduce(uint32_t ranks, uint64_t bytes) : m_ranks(ranks), m_bytes(bytes) {}
    uint32_t steps(uint32_t rank) const override { return rank == 0 ? 1 : 2; }
    Step step(uint32_t rank, uint32_t s) const override {
        Step st;
        if (rank == 0) {
            for (uint32_t r = 1; r < m_ranks; ++r) {
                st.waits.push_back({r, 0, m_bytes, true});
                st.sends.push_back({r, 1, 0, 0, m_bytes, false});
            }
        } else if (s == 0) {
            st.sends.push_back({0, 0, 0, 0, m_bytes, false});
        } else {
            st.waits.push_back({0, 1, m_bytes, false});
        }
        return st;
    }

private:
    uint32_t m_ranks;
    uint64_t m_bytes;
};

}  // namespace
}  // namespace asim

ASIM_REGISTER(asim::collective_algorithm_registry(), test_star,
              "test only: all-reduce through rank 0", {asim::CollectiveOp::allreduce},
              [](const asim::ScheduleShape& s) {
                  return std::make_unique<asim::StarAllReduce>(s.ranks, s.bytes);
              });

namespace asim {
namespace {

TEST(AlgorithmRegistry, ATestOnlyAlgorithmIsChosenFromYamlAndRuns) {
    const Platform p =
        load_platform("supernode8_ring", {"network.collectives.allreduce_algorithm=test_star"});
    ASSERT_EQ(p.network->collectives.allreduce_algo, parse_collective_algo("test_star"));
    const auto offered = algorithms_for(CollectiveOp::allreduce);
    EXPECT_EQ(offered.front(), CollectiveAlgo::ring);  // the default stays first
    EXPECT_NE(std::find(offered.begin(), offered.end(), parse_collective_algo("test_star")),
              offered.end());
    const auto a2a = algorithms_for(CollectiveOp::alltoall);
    EXPECT_EQ(std::find(a2a.begin(), a2a.end(), parse_collective_algo("test_star")), a2a.end());

    // On a full mesh of alpha-beta links (1 us, 25 GB/s) the star takes two message times.
    const uint32_t ranks = 8;
    const uint64_t bytes = 16ull << 20;
    TopologyParams mesh = test::ring_topology(ranks, true, test::alpha_beta_link(1'000'000));
    mesh.node_topology = "full_mesh";
    const Topology t(mesh);
    FlowNetwork net(t, 1);
    CollectiveEngine engine(net, CollectiveParams{});
    CollectiveRequest req;
    req.op = CollectiveOp::allreduce;
    req.algo = p.network->collectives.allreduce_algo;
    req.group.resize(ranks);
    std::iota(req.group.begin(), req.group.end(), 0u);
    req.bytes = bytes;
    const uint32_t id = engine.start(req, 0);
    engine.run();
    const double us =
        static_cast<double>(engine.result(id).end_ps - engine.result(id).start_ps) * 1e-6;
    EXPECT_NEAR(us / (2 * (1.0 + static_cast<double>(bytes) / 25e9 * 1e6)), 1.0, 0.05) << us;
}

TEST(AlgorithmRegistry, AnAlgorithmForAnotherOpIsRefusedNamingTheChoices) {
    ScheduleShape shape;
    shape.op = CollectiveOp::alltoall;
    shape.algo = parse_collective_algo("test_star");
    shape.ranks = 4;
    shape.bytes = 1024;
    try {
        make_schedule(shape);
        FAIL() << "test_star accepted for alltoall";
    } catch (const InputError& e) {
        EXPECT_NE(
            std::string(e.what()).find("does not apply to alltoall (choices: pairwise, direct)"),
            std::string::npos)
            << e.what();
    }
    EXPECT_THROW(parse_collective_algo("tset_star"), InputError);
}

}  // namespace
}  // namespace asim
