// Flow network: max-min fair shares, time that jumps over idle periods, rerouting around a down
// link, and the watchdog when no route is left.
#include <gtest/gtest.h>

#include "models/common/errors.h"
#include "models/interconnect/network/flow_network.h"
#include "tests/interconnect/test_links.h"

namespace asim {
namespace {

TopologyParams ring(uint32_t dies, bool bidirectional, int64_t latency_ps) {
    LinkParams link = test::alpha_beta_link(latency_ps);
    link.mtu_bytes = 4096;  // each extra hop stores and forwards one 164 ns packet
    return test::ring_topology(dies, bidirectional, link);
}

TEST(FlowNetwork, MaxMinFairShares) {
    // Link 0->1 carries A, C, D (1/3 each); link 1->2 carries A and B, so B gets the 2/3 A leaves.
    const Topology t(ring(3, false, 0));
    FlowNetwork net(t, 1);
    int64_t b_done = 0, a_done = 0;
    net.start_transfer(0, 2, 100'000'000, LinkOp::write, 0, [&](int64_t at) { a_done = at; });
    net.start_transfer(1, 2, 10'000'000, LinkOp::write, 0, [&](int64_t at) { b_done = at; });
    net.start_transfer(0, 1, 100'000'000, LinkOp::write, 0, {});
    net.start_transfer(0, 1, 100'000'000, LinkOp::write, 0, {});
    net.run();
    EXPECT_NEAR(static_cast<double>(b_done) * 1e-12, 10e6 / (25e9 * 2.0 / 3.0), 1e-9);
    // A: 1/3 throughout (link 0->1 stays shared by three flows), 100 MB at 25/3 GB/s.
    EXPECT_NEAR(static_cast<double>(a_done) * 1e-12, 100e6 / (25e9 / 3.0) + 4096 / 25e9, 1e-9);
    EXPECT_EQ(net.pending_transfers(), 0u);
}

TEST(FlowNetwork, RatesRiseWhenACompetitorLeaves) {
    const Topology t(ring(2, false, 0));
    FlowNetwork net(t, 1);
    int64_t long_done = 0;
    net.start_transfer(0, 1, 50'000'000, LinkOp::write, 0, [&](int64_t at) { long_done = at; });
    net.start_transfer(0, 1, 10'000'000, LinkOp::write, 0, {});
    net.run();
    // Both at 12.5 GB/s until the short one ends (20 MB moved), then 40 MB alone at 25 GB/s.
    EXPECT_NEAR(static_cast<double>(long_done) * 1e-12, 20e6 / 25e9 + 40e6 / 25e9, 1e-9);
}

TEST(FlowNetwork, IdleTimeCostsNoEvents) {
    const Topology t(ring(4, true, 1'000'000));
    FlowNetwork net(t, 1);
    int64_t second = 0;
    net.start_transfer(0, 1, 1000, LinkOp::write, 0, {});
    net.start_transfer(2, 3, 1000, LinkOp::write, 3'600'000'000'000'000LL, [&](int64_t at) { second = at; });  // an hour later
    net.run();
    EXPECT_GT(second, 3'600'000'000'000'000LL);
    EXPECT_LT(net.stats().events, 10u);
}

TEST(FlowNetwork, ADownLinkWithAnAlternativeReroutesAndSlowsDown) {
    const Topology t(ring(8, true, 1'000'000));
    int64_t healthy = 0, faulty = 0;
    {
        FlowNetwork net(t, 1);
        net.start_transfer(0, 1, 100'000'000, LinkOp::write, 0, [&](int64_t at) { healthy = at; });
        net.run();
    }
    FlowNetwork net(t, 1);
    net.start_transfer(0, 1, 100'000'000, LinkOp::write, 0, [&](int64_t at) { faulty = at; });
    net.set_link_down(static_cast<uint32_t>(t.link_between(0, 1)), 1'000'000'000);  // at 1 ms of 4 ms
    net.run();
    EXPECT_EQ(net.stats().reroutes, 1u);
    // The rest goes 7 hops round: same rate, 6 more hops of 1 us plus a stored packet each.
    EXPECT_NEAR(static_cast<double>(faulty - healthy), 6e6 + 6 * 4096 / 25e9 * 1e12, 10);
}

TEST(FlowNetwork, ADownLinkWithoutAnAlternativeFailsClearly) {
    const Topology t(ring(4, false, 1'000'000));
    FlowNetwork net(t, 1);
    net.set_labeler([](uint64_t key) { return key == 7 ? std::string("big write") : std::string("?"); });
    net.start_transfer(0, 2, 100'000'000, LinkOp::write, 0, {}, 7);
    net.set_link_down(static_cast<uint32_t>(t.link_between(1, 2)), 1'000'000);
    try {
        net.run();
        FAIL() << "expected the watchdog";
    } catch (const SimulationError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("watchdog"), std::string::npos) << m;
        EXPECT_NE(m.find("big write die0 -> die2"), std::string::npos) << m;
        EXPECT_NE(m.find("no route"), std::string::npos) << m;
    }
}

TEST(FlowNetwork, SprayingOverPlanesAddsTheirBandwidth) {
    TopologyParams p;
    p.dies = p.dies_per_node = 4;
    p.node_topology = NodeTopology::switched;
    p.planes = 4;
    p.die_link = test::alpha_beta_link(0);
    p.die_link.mtu_bytes = 4096;  // packets to spray
    const Topology t(p);
    for (const std::size_t paths : {1u, 2u, 4u}) {
        FlowNetwork net(t, paths);
        int64_t done = 0;
        net.start_transfer(0, 3, 100'000'000, LinkOp::write, 0, [&](int64_t at) { done = at; });
        net.run();
        // Plus one packet stored and forwarded at the switch (164 ns).
        EXPECT_NEAR(static_cast<double>(done) * 1e-12, 100e6 / (25e9 * static_cast<double>(paths)) + 4096 / 25e9, 1e-9) << paths;
    }
}

}  // namespace
}  // namespace asim
