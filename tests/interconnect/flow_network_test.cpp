// Flow network: max-min fair shares, time that jumps over idle periods, rerouting around a down
// link, the watchdog when no route is left, and bundled planes giving the per-plane times.
#include <gtest/gtest.h>

#include <cmath>

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
    net.start_transfer(2, 3, 1000, LinkOp::write, 3'600'000'000'000'000LL,
                       [&](int64_t at) { second = at; });  // an hour later
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
    net.set_link_down(static_cast<uint32_t>(t.link_between(0, 1)),
                      1'000'000'000);  // at 1 ms of 4 ms
    net.run();
    EXPECT_EQ(net.stats().reroutes, 1u);
    // The rest goes 7 hops round: same rate, 6 more hops of 1 us plus a stored packet each.
    EXPECT_NEAR(static_cast<double>(faulty - healthy), 6e6 + 6 * 4096 / 25e9 * 1e12, 10);
}

TEST(FlowNetwork, ADownLinkWithoutAnAlternativeFailsClearly) {
    const Topology t(ring(4, false, 1'000'000));
    FlowNetwork net(t, 1);
    net.set_labeler(
        [](uint64_t key) { return key == 7 ? std::string("big write") : std::string("?"); });
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
    p.node_topology = "switch";
    p.node_params.set("planes", int64_t{4});
    p.die_link = test::alpha_beta_link(0);
    p.die_link.mtu_bytes = 4096;  // packets to spray
    const Topology t(p);
    for (const std::size_t paths : {1u, 2u, 4u}) {
        FlowNetwork net(t, paths);
        int64_t done = 0;
        net.start_transfer(0, 3, 100'000'000, LinkOp::write, 0, [&](int64_t at) { done = at; });
        net.run();
        // Plus one packet stored and forwarded at the switch (164 ns).
        EXPECT_NEAR(static_cast<double>(done) * 1e-12,
                    100e6 / (25e9 * static_cast<double>(paths)) + 4096 / 25e9, 1e-9)
            << paths;
    }
}

// A two-tier Clos: 3 nodes of 4 dies, 4 planes, 2 L2 chips per plane; 25 GB/s links with 4 KiB
// packets and 100 ns per hop.
TopologyParams small_clos() {
    TopologyParams p;
    p.dies = 12;
    p.dies_per_node = 4;
    p.node_topology = "switch";
    p.node_params.set("planes", int64_t{4});
    p.die_link = test::alpha_beta_link(100'000);
    p.die_link.mtu_bytes = 4096;
    p.uplink = p.die_link;
    p.scale_out = "clos";
    p.scale_out_params.set("l2_per_plane", int64_t{2});
    return p;
}

struct Outcome {
    std::vector<int64_t> done;  // per transfer
    std::vector<double> bytes;  // per link
    FlowNetworkStats stats;
};

// Mixed sizes (one packet, fewer packets than planes, many), overlapping in time, inside and
// across nodes, with contention on dies, L1 uplinks and L2 downlinks.
Outcome run_mix(const Topology& t, std::size_t max_paths, bool bundle, int64_t fault_at = -1,
                int64_t fault_link = -1) {
    FlowNetwork net(t, max_paths, bundle);
    Outcome o;
    const std::vector<uint64_t> sizes{512, 3 * 4096, 10'000'000, 64 * 4096, 40'000'000, 4096};
    uint32_t n = 0;
    for (uint32_t src = 0; src < t.dies(); ++src) {
        for (uint32_t k = 1; k <= 3; ++k, ++n) {
            const uint32_t dst = (src * 5 + k * 7) % t.dies();
            if (dst == src) continue;
            const std::size_t i = o.done.size();
            o.done.push_back(-1);
            net.start_transfer(
                src, dst, sizes[n % sizes.size()], n % 2 ? LinkOp::read : LinkOp::write,
                static_cast<int64_t>(n % 5) * 50'000'000, [&o, i](int64_t at) { o.done[i] = at; });
        }
    }
    if (fault_link >= 0) net.set_link_down(static_cast<uint32_t>(fault_link), fault_at);
    net.run();
    o.bytes = net.link_bytes();
    o.stats = net.stats();
    return o;
}

void expect_same(const Outcome& per_plane, const Outcome& bundled, const std::string& what) {
    ASSERT_EQ(per_plane.done.size(), bundled.done.size());
    for (std::size_t i = 0; i < per_plane.done.size(); ++i) {
        ASSERT_GT(per_plane.done[i], 0) << what << " transfer " << i;
        // The same rates up to the order of floating-point sums: at most a picosecond apart.
        EXPECT_NEAR(static_cast<double>(bundled.done[i]), static_cast<double>(per_plane.done[i]),
                    1.0)
            << what << " transfer " << i;
    }
    ASSERT_EQ(per_plane.bytes.size(), bundled.bytes.size());
    for (std::size_t l = 0; l < per_plane.bytes.size(); ++l)
        EXPECT_NEAR(bundled.bytes[l], per_plane.bytes[l], 1e-6 * (1.0 + per_plane.bytes[l]))
            << what << " link " << l;
}

TEST(FlowNetwork, BundledPlanesGiveThePerPlaneCompletionTimes) {
    const Topology t(small_clos());
    for (const std::size_t paths :
         {4u, 6u, 8u}) {  // all planes; uneven; all planes x both L2 chips
        const Outcome per_plane = run_mix(t, paths, false);
        const Outcome bundled = run_mix(t, paths, true);
        EXPECT_EQ(per_plane.stats.bundled_flows, 0u);
        EXPECT_GT(bundled.stats.bundled_flows, bundled.stats.flows / 2) << paths;
        expect_same(per_plane, bundled, "max_paths " + std::to_string(paths));
    }
}

TEST(FlowNetwork, AFaultOnOnePlaneReroutesBundledFlowsAsPerPlaneLinks) {
    const Topology t(small_clos());
    // Mixed traffic, an L1 -> L2 uplink of node 0 going down at 60 us: the same times either way,
    // and no bytes on the down link after the fault.
    const int64_t up = t.find_link("l1.n0.p2->l2.p2.1");
    ASSERT_GE(up, 0);
    const Outcome per_plane = run_mix(t, 4, false, 60'000'000, up);
    const Outcome bundled = run_mix(t, 4, true, 60'000'000, up);
    EXPECT_GT(bundled.stats.reroutes, 0u);
    EXPECT_EQ(bundled.stats.reroutes, per_plane.stats.reroutes);
    expect_same(per_plane, bundled, "uplink fault");
    EXPECT_GT(run_mix(t, 4, true).done.back(), 0);

    // One 100 MB write from die 0 across nodes, die 0's port to plane 0 down at 0.5 ms: 4 planes
    // at 25 GB/s until then, 3 after; the down port carries exactly its quarter of the first half
    // ms.
    const int64_t port = t.find_link("die0->l1.n0.p0");
    ASSERT_GE(port, 0);
    for (const bool bundle : {false, true}) {
        FlowNetwork net(t, 4, bundle);
        int64_t done = 0;
        net.start_transfer(0, 5, 100'000'000, LinkOp::write, 0, [&](int64_t at) { done = at; });
        net.set_link_down(static_cast<uint32_t>(port), 500'000'000);
        net.run();
        EXPECT_EQ(net.stats().reroutes, 1u);
        const double before = 4 * 25e9 * 0.5e-3;  // bytes in the first half ms
        const double rest = (100e6 - before) / (3 * 25e9);
        // 4 hops of 100 ns and 3 stored 4 KiB packets after the last byte leaves.
        const double latency = 4 * 100e-9 + 3 * 4096 / 25e9;
        EXPECT_NEAR(static_cast<double>(done) * 1e-12, 0.5e-3 + rest + latency, 1e-9) << bundle;
        EXPECT_NEAR(net.link_bytes()[static_cast<std::size_t>(port)], before / 4, 1.0) << bundle;
        const int64_t other = t.find_link("die0->l1.n0.p1");
        EXPECT_NEAR(net.link_bytes()[static_cast<std::size_t>(other)],
                    before / 4 + (100e6 - before) / 3, 1.0)
            << bundle;
    }
}

// Streams: the DSM pool's many small pieces as one flow that holds its links while it has a
// backlog, sharing them max-min with the transfers.
TEST(FlowNetwork, AStreamAloneDrainsAtTheLinkRateAndFifo) {
    const Topology t(ring(2, false, 0));
    FlowNetwork net(t, 1);
    const uint32_t s = net.open_stream(0, 1, LinkOp::read);
    // 1 MB, then another 1 MB pushed 10 us later: each answer is the end of the backlog.
    const int64_t first = net.stream_push(s, 1'000'000);
    EXPECT_NEAR(static_cast<double>(first) * 1e-12, 1e6 / 25e9, 1e-11);
    net.advance_to(10'000'000);
    const int64_t second = net.stream_push(s, 1'000'000);
    EXPECT_NEAR(static_cast<double>(second) * 1e-12, 2e6 / 25e9, 1e-11);
    net.run();
    EXPECT_EQ(net.pending_transfers(), 0u);  // a stream is never a pending transfer
    EXPECT_NEAR(net.link_bytes()[0], 2e6, 1);
}

TEST(FlowNetwork, AStreamAndATransferShareALinkAndTheStreamLeavesWhenDrained) {
    const Topology t(ring(2, false, 0));
    FlowNetwork net(t, 1);
    int64_t done = 0;
    net.start_transfer(0, 1, 50'000'000, LinkOp::write, 0, [&](int64_t at) { done = at; });
    net.advance_to(0);  // the transfer is on the link
    const uint32_t s = net.open_stream(0, 1, LinkOp::write);
    // Half the link each: 10 MB of backlog drain in 10e6 / 12.5e9 s.
    const int64_t drained = net.stream_push(s, 10'000'000);
    EXPECT_NEAR(static_cast<double>(drained) * 1e-12, 10e6 / 12.5e9, 1e-11);
    net.run();
    // The transfer sent 10 MB beside the stream, then 40 MB alone at the full rate.
    EXPECT_NEAR(static_cast<double>(done) * 1e-12, 20e6 / 25e9 + 40e6 / 25e9, 1e-9);
    // Pushed again after it drained, it starts alone at the full rate.
    net.advance_to(done + 1'000'000);
    const int64_t pushed_at = net.now_ps();  // (stale events may have moved now further)
    EXPECT_GE(pushed_at, done + 1'000'000);
    EXPECT_NEAR(static_cast<double>(net.stream_push(s, 1'000'000) - pushed_at) * 1e-12, 1e6 / 25e9,
                1e-11);
    net.run();
    EXPECT_NEAR(net.link_bytes()[0], 61e6, 10);
}

TEST(FlowNetwork, AWeightedStreamGetsItsWeightedShare) {
    // A background stream of weight 1/16 beside a transfer on one link: 1/17 of the link.
    const Topology t(ring(2, false, 0));
    FlowNetwork net(t, 1);
    net.start_transfer(0, 1, 100'000'000, LinkOp::write, 0, {});
    net.advance_to(0);
    const uint32_t s = net.open_stream(0, 1, LinkOp::write, 1.0 / 16);
    EXPECT_NEAR(static_cast<double>(net.stream_push(s, 1'000'000)) * 1e-12, 1e6 / (25e9 / 17),
                1e-11);
}

TEST(FlowNetwork, AStreamWithoutARouteIsASimulationError) {
    const Topology t(ring(4, false, 0));
    FlowNetwork net(t, 1);
    net.set_link_down(static_cast<uint32_t>(t.link_between(1, 2)), 0);
    net.advance_to(1);
    const uint32_t s = net.open_stream(1, 2, LinkOp::read);
    EXPECT_THROW(net.stream_push(s, 4096), SimulationError);
    EXPECT_THROW(net.open_stream(1, 1, LinkOp::read), InputError);
}

}  // namespace
}  // namespace asim
