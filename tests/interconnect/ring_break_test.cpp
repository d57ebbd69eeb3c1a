// A ring with a hop over the host (the fallback star): the host forwards at its copy bandwidth,
// and an all-reduce either keeps the ring (forward) or runs as a star through the host (star),
// with `cost` choosing the one the alpha-beta estimate says is faster. Mechanisms, not numbers:
// the forwarded ring's large messages are bound by the host's copy, the star's small ones by two
// host crossings, both give the true sum, and `cost` picks whichever simulates faster.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "models/common/config.h"
#include "models/common/errors.h"
#include "models/interconnect/collectives/collective_engine.h"
#include "models/interconnect/network_params.h"
#include "tests/interconnect/test_links.h"

namespace asim {
namespace {

constexpr uint32_t kDies = 8;
constexpr int64_t kHostCrossingPs = 8'000'000;  // per crossing into or out of the host

// Eight dies on a unidirectional 25 GB/s ring; a 50 GB/s star to the host with 8 us per crossing;
// the host forwards at `host_copy`, piece by piece (the star's MTU).
TopologyParams broken_ring_node(double host_copy) {
    TopologyParams t = test::ring_topology(kDies, false, test::alpha_beta_link(1'000'000));
    t.has_fallback = true;
    t.fallback_link = test::alpha_beta_link(kHostCrossingPs);
    t.fallback_link.lane_rate_bps = 400e9;
    t.fallback_link.mtu_bytes = 4096;  // the host forwards 4 KiB pieces as they arrive
    t.host_copy_bytes_per_s = host_copy;
    return t;
}

struct Outcome {
    double us;
    CollectiveResult result;
};

Outcome allreduce(const TopologyParams& params, uint64_t bytes, RingBreak rule,
                  bool functional = false, bool break_ring = true) {
    const Topology t(params);
    FlowNetwork net(t, 1);
    if (break_ring) net.set_link_down(static_cast<uint32_t>(t.link_between(3, 4)), 0);
    CollectiveParams cp;
    cp.ring_break = rule;
    CollectiveEngine engine(net, cp, functional);
    std::vector<uint32_t> group(kDies);
    std::iota(group.begin(), group.end(), 0u);
    const uint32_t id =
        engine.start({CollectiveOp::allreduce, CollectiveAlgo::ring, group, bytes, 0, {}}, 0);
    engine.run();
    if (functional) {
        for (uint32_t r = 0; r < kDies; ++r)
            for (uint64_t i = 0; i < bytes; ++i) {
                double want = 0;
                for (uint32_t k = 0; k < kDies; ++k) want += CollectiveEngine::initial_value(k, i);
                EXPECT_EQ(engine.buffer(id, r)[i], want)
                    << to_string(rule) << " rank " << r << " byte " << i;
            }
    }
    const CollectiveResult& res = engine.result(id);
    return {static_cast<double>(res.end_ps - res.start_ps) * 1e-6, res};
}

TEST(RingBreak, BothFallbacksGiveTheTrueSum) {
    for (const RingBreak rule : ring_break_choices())
        allreduce(broken_ring_node(20e9), 1000, rule, true);
    EXPECT_TRUE(allreduce(broken_ring_node(20e9), 1000, RingBreak::star).result.host_star);
    EXPECT_FALSE(allreduce(broken_ring_node(20e9), 1000, RingBreak::forward).result.host_star);
}

TEST(RingBreak, AWholeRingIsNotAFallback) {
    const Outcome o = allreduce(broken_ring_node(20e9), 1 << 20, RingBreak::star, false, false);
    EXPECT_FALSE(o.result.ring_broken);
    EXPECT_FALSE(o.result.host_star);
}

TEST(RingBreak, TheHostsCopyBoundsALargeForwardedRing) {
    // 1 GiB: every ring step moves bytes / 8 over the forwarded hop, 14 steps in all.
    const uint64_t bytes = 1ull << 30;
    const double ring_steps = 2.0 * (kDies - 1);
    for (const double copy : {5e9, 10e9}) {
        const double us = allreduce(broken_ring_node(copy), bytes, RingBreak::forward).us;
        const double bound_us = ring_steps * (static_cast<double>(bytes) / kDies) / copy * 1e6;
        EXPECT_GT(us, bound_us) << copy;
        EXPECT_LT(us, bound_us * 1.01) << copy;  // latency is a rounding error at 1 GiB
    }
    // A copy faster than the ring's links leaves the ring link-bound, as if it were whole.
    const double fast = allreduce(broken_ring_node(1e12), bytes, RingBreak::forward).us;
    const double whole =
        allreduce(broken_ring_node(1e12), bytes, RingBreak::forward, false, false).us;
    EXPECT_LT(fast, whole * 1.01);
}

TEST(RingBreak, AStarOfSmallMessagesCostsTwoHostCrossings) {
    const Outcome star = allreduce(broken_ring_node(20e9), 64, RingBreak::star);
    const double crossings_us = 2.0 * static_cast<double>(kHostCrossingPs) * 1e-6;
    EXPECT_GT(star.us, crossings_us);
    EXPECT_LT(star.us, crossings_us * 1.01);
    // The forwarded ring pays a crossing pair on each of its 14 steps.
    EXPECT_GT(allreduce(broken_ring_node(20e9), 64, RingBreak::forward).us, 14 * crossings_us);
}

TEST(RingBreak, CostPicksWhicheverSimulatesFaster) {
    for (const uint64_t bytes : {64ull, 4096ull, 1ull << 20, 16ull << 20, 256ull << 20}) {
        const Outcome forward = allreduce(broken_ring_node(20e9), bytes, RingBreak::forward);
        const Outcome star = allreduce(broken_ring_node(20e9), bytes, RingBreak::star);
        const Outcome cost = allreduce(broken_ring_node(20e9), bytes, RingBreak::cost);
        EXPECT_TRUE(cost.result.ring_broken);
        EXPECT_EQ(cost.us, std::min(forward.us, star.us)) << bytes;
        // The estimates are the alpha-beta times of both: within 5 % of the simulated ones here.
        EXPECT_NEAR(static_cast<double>(cost.result.estimate_forward_ps) * 1e-6, forward.us,
                    forward.us * 0.05);
        EXPECT_NEAR(static_cast<double>(cost.result.estimate_star_ps) * 1e-6, star.us,
                    star.us * 0.05);
    }
    // Both sides of the crossover occur: the star for small messages, the ring for large ones.
    EXPECT_TRUE(allreduce(broken_ring_node(20e9), 64, RingBreak::cost).result.host_star);
    EXPECT_FALSE(allreduce(broken_ring_node(20e9), 256ull << 20, RingBreak::cost).result.host_star);
}

TEST(RingBreak, ConfigKeysAreCheckedAndTheHostCopyIsRequired) {
    const std::string base = R"(network:
  dies: 8
  node:
    dies: 8
    topology: ring
    bidirectional: false
    link: {lanes: 1, lane_rate: 200Gbps, mtu: 4KiB}
    fallback: {lanes: 16, lane_rate: 32Gbps, mtu: 512B, switch_latency: 7.5us)";
    auto parse = [](const std::string& text) {
        const Config c = Config::from_string(text, "t.yaml");
        return parse_network_params(c.root().child("network"));
    };
    EXPECT_EQ(parse(base + ", host_copy: 16GB/s}\n").topology.host_copy_bytes_per_s, 16e9);
    try {
        parse(base + "}\n");
        FAIL() << "a fallback star without host_copy was accepted";
    } catch (const ConfigError& e) {
        EXPECT_NE(std::string(e.what()).find("host_copy"), std::string::npos) << e.what();
    }
    EXPECT_EQ(parse(base + ", host_copy: 16GB/s}\n  collectives: {ring_break: star}\n")
                  .collectives.ring_break,
              RingBreak::star);
    try {
        parse(base + ", host_copy: 16GB/s}\n  collectives: {ring_break: stra}\n");
        FAIL() << "an unknown ring_break was accepted";
    } catch (const ConfigError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("ring_break"), std::string::npos) << what;
        EXPECT_NE(what.find("cost, forward, star"), std::string::npos) << what;
    }
}

}  // namespace
}  // namespace asim
