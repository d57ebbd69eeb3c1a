// HCCL-like costs of the collective engine: a start-up per message (SDMA, or AIV-direct for the
// ops that use it) and the per-step ready flags (notify) that keep a sender from writing before its
// receiver's buffer is free. Mechanisms: each adds what its rule says to an uncontended ring, the
// flags travel the links (a unidirectional ring sends them the long way round), and every
// algorithm still gives the true result.
#include <gtest/gtest.h>

#include <numeric>

#include "models/common/config.h"
#include "models/common/errors.h"
#include "models/interconnect/collectives/collective_engine.h"
#include "models/interconnect/network_params.h"
#include "tests/interconnect/test_links.h"

namespace asim {
namespace {

constexpr int64_t kHopPs = 1'000'000;  // 1 us per link

std::vector<uint32_t> iota(uint32_t n) {
    std::vector<uint32_t> v(n);
    std::iota(v.begin(), v.end(), 0u);
    return v;
}

double run_us(const TopologyParams& topo, const CollectiveParams& cp, CollectiveOp op,
              CollectiveAlgo algo, uint32_t p, uint64_t bytes, bool functional = false) {
    const Topology t(topo);
    FlowNetwork net(t, 1);
    CollectiveEngine engine(net, cp, functional);
    const uint32_t id = engine.start({op, algo, iota(p), bytes, 0, {}}, 0);
    engine.run();
    if (functional && op == CollectiveOp::allreduce) {
        for (uint32_t r = 0; r < p; ++r)
            for (uint64_t i = 0; i < bytes; ++i) {
                double want = 0;
                for (uint32_t k = 0; k < p; ++k) want += CollectiveEngine::initial_value(k, i);
                EXPECT_EQ(engine.buffer(id, r)[i], want) << to_string(algo) << " rank " << r;
            }
    }
    return static_cast<double>(engine.result(id).end_ps - engine.result(id).start_ps) * 1e-6;
}

TEST(HcclCosts, EveryMessagePaysItsStartUpOnTheTransportItsOpUses) {
    const uint32_t p = 8;
    const auto ring = test::ring_topology(p, false, test::alpha_beta_link(kHopPs));
    CollectiveParams plain;
    CollectiveParams costly = plain;
    costly.sdma_start_ps = 3'000'000;
    costly.aiv_start_ps = 500'000;
    // All-reduce over SDMA: 2(p-1) steps, each waits for one message's start-up.
    const double base =
        run_us(ring, plain, CollectiveOp::allreduce, CollectiveAlgo::ring, p, 1 << 20);
    const double sdma =
        run_us(ring, costly, CollectiveOp::allreduce, CollectiveAlgo::ring, p, 1 << 20);
    EXPECT_NEAR(sdma - base, 2.0 * (p - 1) * 3.0, 0.01);
    // All-to-all (pairwise, p-1 steps) moved AIV-direct pays the AIV start-up instead.
    costly.aiv_direct = {CollectiveOp::alltoall};
    const double a2a =
        run_us(ring, plain, CollectiveOp::alltoall, CollectiveAlgo::pairwise, p, 1 << 20);
    const double aiv =
        run_us(ring, costly, CollectiveOp::alltoall, CollectiveAlgo::pairwise, p, 1 << 20);
    EXPECT_GT(aiv, a2a);
    EXPECT_LT(aiv - a2a, (p - 1) * 0.5 + 0.01);
    costly.aiv_direct.clear();
    EXPECT_GT(
        run_us(ring, costly, CollectiveOp::alltoall, CollectiveAlgo::pairwise, p, 1 << 20) - a2a,
        (p - 1) * 0.5 + 0.01);  // over SDMA it is the larger start-up
}

TEST(HcclCosts, ReadyFlagsCostEachRingStepAFlagsTripOverTheLinks) {
    const uint32_t p = 8;
    CollectiveParams plain, notify;
    notify.notify_bytes = 8;
    notify.notify_overhead_ps = 200'000;
    // Bidirectional ring: the flag goes back over one link, 1 us + 0.2 us per step.
    const auto bi = test::ring_topology(p, true, test::alpha_beta_link(kHopPs));
    const double base =
        run_us(bi, plain, CollectiveOp::allreduce, CollectiveAlgo::ring, p, 1 << 20);
    const double flagged =
        run_us(bi, notify, CollectiveOp::allreduce, CollectiveAlgo::ring, p, 1 << 20);
    EXPECT_NEAR(flagged - base, 2.0 * (p - 1) * 1.2, 0.05);
    // Unidirectional ring: the flag has no way back but round the ring, p-1 links.
    const auto uni = test::ring_topology(p, false, test::alpha_beta_link(kHopPs));
    const double base_uni =
        run_us(uni, plain, CollectiveOp::allreduce, CollectiveAlgo::ring, p, 1 << 20);
    const double flagged_uni =
        run_us(uni, notify, CollectiveOp::allreduce, CollectiveAlgo::ring, p, 1 << 20);
    EXPECT_NEAR(flagged_uni - base_uni, 2.0 * (p - 1) * (1.0 * (p - 1) + 0.2), 0.2);
}

TEST(HcclCosts, EveryAlgorithmStillGivesTheTrueResultWithFlagsAndStartUps) {
    CollectiveParams cp;
    cp.notify_bytes = 8;
    cp.notify_overhead_ps = 100'000;
    cp.sdma_start_ps = 300'000;
    cp.chunk_bytes = 64;
    const auto mesh = [] {
        TopologyParams t = test::ring_topology(6, true, test::ub_link());
        t.node_topology = "full_mesh";
        return t;
    }();
    using A = CollectiveAlgo;
    for (const A a : {A::ring, A::ring_pipelined, A::halving_doubling, A::mesh, A::double_ring})
        EXPECT_GT(run_us(mesh, cp, CollectiveOp::allreduce, a, 6, 1000, true), 0.0) << to_string(a);
    for (const A a : {A::pairwise, A::direct})
        EXPECT_GT(run_us(mesh, cp, CollectiveOp::alltoall, a, 6, 600, true), 0.0) << to_string(a);
    for (const A a : {A::ring, A::ring_pipelined, A::mesh})
        EXPECT_GT(run_us(mesh, cp, CollectiveOp::broadcast, a, 6, 600, true), 0.0) << to_string(a);
}

TEST(HcclCosts, ConfigKeysParseAndTheSdmaStartDefaultsToTheEndpointsIssueCost) {
    const std::string base = R"(network:
  dies: 4
  node: {dies: 4, topology: ring, link: {lane_rate: 200Gbps}}
  endpoint: {issue_overhead: 400ns}
)";
    auto parse = [](const std::string& text) {
        const Config c = Config::from_string(text, "t.yaml");
        return parse_network_params(c.root().child("network"));
    };
    EXPECT_EQ(parse(base).collectives.sdma_start_ps, 400'000);
    const NetworkParams p = parse(base + R"(  collectives:
    sdma_start: 1us
    aiv_direct: [alltoall, alltoallv]
    notify_bytes: 8B
    notify_overhead: 100ns
)");
    EXPECT_EQ(p.collectives.sdma_start_ps, 1'000'000);
    EXPECT_TRUE(p.collectives.uses_aiv(CollectiveOp::alltoallv));
    EXPECT_FALSE(p.collectives.uses_aiv(CollectiveOp::allreduce));
    EXPECT_EQ(p.collectives.notify_bytes, 8u);
    EXPECT_EQ(p.collectives.notify_overhead_ps, 100'000);
    for (const std::string bad :
         {"aiv_direct: [alltoal]", "aiv_direct: alltoall", "notify_overhead: -1us"}) {
        try {
            parse(base + "  collectives: {" + bad + "}\n");
            ADD_FAILURE() << bad << " was accepted";
        } catch (const ConfigError& e) {
            EXPECT_NE(std::string(e.what()).find(bad.substr(0, bad.find(':'))), std::string::npos)
                << e.what();
        }
    }
}

// NetworkParams' defaults are the declared ones (network_config.cpp): code that builds the network
// without YAML gets what a platform that leaves the keys out gets. The required keys are given the
// struct's own values, and the optional sections are present but empty, so that their keys'
// declared defaults are read. Not compared: the links' keys (LinkParams' test, link_test.cpp),
// and the routing policy's and node topology's own keys, which the struct leaves empty by design:
// the registry fills in their declared defaults when it builds the part (Registry::make).
TEST(NetworkParams, StructDefaultsAreTheDeclaredDefaults) {
    const NetworkParams d;
    const Config c = Config::from_string(R"(network:
  dies: 8
  node: {dies: 8, topology: ring, link: {lane_rate: 200Gbps}}
  endpoint: {}
  collectives: {}
  faults: [{link: die0->die1}]
)",
                                         "t.yaml");
    const NetworkParams p = parse_network_params(c.root().child("network"));
    ASSERT_EQ(p.topology.dies, d.topology.dies);
    ASSERT_EQ(p.topology.dies_per_node, d.topology.dies_per_node);
    ASSERT_EQ(p.topology.node_topology, d.topology.node_topology);
    EXPECT_EQ(p.max_paths, d.max_paths);
    EXPECT_EQ(p.routing, d.routing);
    EXPECT_EQ(p.endpoint.issue_overhead_ps, d.endpoint.issue_overhead_ps);
    EXPECT_EQ(p.endpoint.memory_read_ps, d.endpoint.memory_read_ps);
    EXPECT_EQ(p.endpoint.memory_write_ps, d.endpoint.memory_write_ps);
    const CollectiveParams &co = p.collectives, &dc = d.collectives;
    EXPECT_EQ(co.allreduce_algo, dc.allreduce_algo);
    EXPECT_EQ(co.chunk_bytes, dc.chunk_bytes);
    EXPECT_EQ(co.reduce_bytes_per_s, dc.reduce_bytes_per_s);  // absent: free
    EXPECT_EQ(co.launch_overhead_ps, dc.launch_overhead_ps);
    EXPECT_EQ(co.sdma_start_ps, dc.sdma_start_ps);  // declared: the endpoint's issue overhead
    EXPECT_EQ(co.aiv_start_ps, dc.aiv_start_ps);
    EXPECT_EQ(co.aiv_direct, dc.aiv_direct);
    EXPECT_EQ(co.notify_bytes, dc.notify_bytes);
    EXPECT_EQ(co.notify_overhead_ps, dc.notify_overhead_ps);
    EXPECT_EQ(co.die_work, dc.die_work);
    EXPECT_EQ(co.buffer_bytes, dc.buffer_bytes);
    EXPECT_EQ(co.ring_break, dc.ring_break);
    ASSERT_EQ(p.faults.size(), 1u);
    EXPECT_EQ(p.faults[0].at_ps, LinkFault{}.at_ps);
}

}  // namespace
}  // namespace asim
