// Packet-level link model: serialisation and efficiency, credits bounded by the buffer, retries
// that neither lose nor duplicate packets, and a link that goes down.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "models/common/config.h"
#include "models/common/errors.h"
#include "models/common/params.h"
#include "models/interconnect/link/packet_path.h"
#include "tests/interconnect/test_links.h"

namespace asim {
namespace {

TEST(Link, StreamApproachesRateTimesEfficiencyTimesPacketFraction) {
    const LinkParams l = test::ub_link();
    for (const LinkOp op : {LinkOp::read, LinkOp::write}) {
        PacketPath path({{l, l}}, 1);
        const uint64_t bytes = 64ull << 20;
        const PacketTransferResult r = path.send(bytes, op);
        const double bw =
            static_cast<double>(bytes) / (static_cast<double>(r.completion_ps) * 1e-12);
        const double expected = 28e9 * l.efficiency(op) * 4096.0 / 4128.0;
        EXPECT_NEAR(bw / expected, 1.0, 0.005) << to_string(op);
        EXPECT_EQ(r.delivered, r.packets);
        EXPECT_EQ(r.duplicates, 0u);
    }
}

TEST(Link, SmallMessageLatencyIsHopsTimesPerHopCost) {
    const LinkParams l = test::ub_link();
    PacketPath path({{l, l, l}}, 1);
    const PacketTransferResult r = path.send(512, LinkOp::write);
    const int64_t per_hop =
        l.packet_time_ps(512, LinkOp::write) + l.propagation_ps + l.switch_latency_ps;
    EXPECT_EQ(r.completion_ps, 3 * per_hop);
}

TEST(Link, CreditsStayWithinTheBufferAndSmallBuffersThrottle) {
    LinkParams l = test::ub_link();
    l.propagation_ps = 2'000'000;  // 2 us each way: the credit loop is far longer than a packet
    const uint64_t bytes = 16ull << 20;
    double previous_bw = 0;
    for (const uint32_t buffer : {1u, 4u, 16u, 256u}) {
        l.buffer_packets = buffer;
        PacketPath path({{l, l}}, 7);
        const PacketTransferResult r = path.send(bytes, LinkOp::read);
        EXPECT_GE(r.min_credits, 0) << buffer;
        EXPECT_LE(r.max_credit_excess, 0) << buffer;
        const double bw =
            static_cast<double>(bytes) / (static_cast<double>(r.completion_ps) * 1e-12);
        // Credit-limited: at most `buffer` packets per credit round trip (at least two flights).
        const double loop_s = static_cast<double>(2 * l.propagation_ps) * 1e-12;
        EXPECT_LE(bw, buffer * 4096.0 / loop_s * 1.01) << buffer;
        EXPECT_GT(bw, previous_bw) << "more credits must not be slower";
        previous_bw = bw;
    }
}

TEST(Link, RandomTrafficWithRetriesLosesAndDuplicatesNothing) {
    std::mt19937_64 rng(42);
    for (int trial = 0; trial < 20; ++trial) {
        LinkParams l = test::ub_link();
        l.error_rate = 0.05 + 0.3 * static_cast<double>(rng() % 100) / 100.0;
        l.retry_latency_ps = 50'000;
        l.buffer_packets = 1 + static_cast<uint32_t>(rng() % 8);
        const std::size_t paths = 1 + rng() % 4, hops = 1 + rng() % 4;
        std::vector<std::vector<LinkParams>> chains(paths, std::vector<LinkParams>(hops, l));
        const uint64_t bytes = 1 + rng() % (2u << 20);
        PacketPath path(chains, rng());
        const PacketTransferResult r = path.send(bytes, trial % 2 ? LinkOp::read : LinkOp::write);
        EXPECT_EQ(r.delivered, r.packets) << trial;
        EXPECT_EQ(r.duplicates, 0u) << trial;
        EXPECT_GT(r.retries, 0u) << trial;
        EXPECT_EQ(r.transmissions, r.packets * hops + r.retries) << trial;
        EXPECT_GE(r.min_credits, 0);
        EXPECT_LE(r.max_credit_excess, 0);
    }
}

TEST(Link, RetriesAreDeterministicForASeed) {
    LinkParams l = test::ub_link();
    l.error_rate = 0.1;
    const auto a = PacketPath({{l, l}}, 5).send(1 << 20, LinkOp::write);
    const auto b = PacketPath({{l, l}}, 5).send(1 << 20, LinkOp::write);
    EXPECT_EQ(a.completion_ps, b.completion_ps);
    EXPECT_EQ(a.retries, b.retries);
    const auto clean =
        PacketPath({{test::ub_link(), test::ub_link()}}, 5).send(1 << 20, LinkOp::write);
    EXPECT_GT(a.completion_ps, clean.completion_ps);
}

TEST(Link, ADownLinkStallsAndTheWatchdogNamesThePackets) {
    const LinkParams l = test::ub_link();
    PacketPath path({{l, l}}, 1);
    path.set_link_down(0, 1, 1'000'000);  // second link down after 1 us
    try {
        path.send(8 << 20, LinkOp::write);
        FAIL() << "expected a stall";
    } catch (const SimulationError& e) {
        EXPECT_NE(std::string(e.what()).find("undelivered"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("packet"), std::string::npos) << e.what();
    }
}

TEST(Link, EventsGrowLinearlyWithPackets) {
    // Regression: wake-up events of a busy hop used to multiply with every arrival (quadratic
    // time: 64 MiB over a 4-hop RoCE path took 100 s). Each packet now costs a bounded number of
    // events per hop.
    LinkParams l = test::ub_link();
    l.switch_latency_ps = 300'000;
    l.buffer_packets = 64;
    for (const uint64_t bytes : {1ull << 20, 16ull << 20}) {
        const PacketTransferResult r = PacketPath({{l, l, l, l}}, 1).send(bytes, LinkOp::write);
        EXPECT_LT(r.events, 6 * r.packets * 4) << bytes;
    }
}

TEST(Link, ParamsReportProblems) {
    LinkParams l;
    l.lane_rate_bps = 0;
    l.read_efficiency = 1.5;
    const std::string p = l.problems("x.");
    EXPECT_NE(p.find("x.lane_rate"), std::string::npos);
    EXPECT_NE(p.find("x.read_efficiency"), std::string::npos);
    EXPECT_TRUE(test::ub_link().problems("").empty());
}

// LinkParams' defaults are the declared ones (link_config.cpp). A link key left out takes the
// parent's value, and the platform's top-level links (node.link, node.fallback, scale_out.nic)
// parse on top of LinkParams{}, so what their keys default to is the struct: each declaration's
// "the parent's, else X" must name the struct's value. The test writes every declared X into a
// link and compares with LinkParams{}; lane_rate is the one key without an X (a die link needs it).
TEST(LinkParams, StructDefaultsAreTheDeclaredDefaults) {
    const ParamTable* link = nullptr;
    for (const ParamTable* t : param_tables()) {
        const auto& paths = t->paths();
        if (std::find(paths.begin(), paths.end(), "network.node.link") != paths.end()) link = t;
    }
    ASSERT_NE(link, nullptr);
    std::string yaml = "lane_rate: 200Gbps\n";
    std::size_t declared = 0;
    for (const Param& p : link->params()) {
        const std::string& from = p.default_from();
        const auto at = from.find(", else ");
        if (at == std::string::npos) continue;
        yaml += p.key() + ": " + from.substr(at + 7) + "\n";
        ++declared;
    }
    EXPECT_EQ(declared, link->params().size() - 1) << yaml;
    const LinkParams d;
    const Config c = Config::from_string(yaml, "t.yaml");
    const LinkParams p = parse_link_params(c.root(), d);
    EXPECT_EQ(p.lanes, d.lanes);
    EXPECT_EQ(p.read_efficiency, d.read_efficiency);
    EXPECT_EQ(p.write_efficiency, d.write_efficiency);
    EXPECT_EQ(p.mtu_bytes, d.mtu_bytes);
    EXPECT_EQ(p.header_bytes, d.header_bytes);
    EXPECT_EQ(p.propagation_ps, d.propagation_ps);
    EXPECT_EQ(p.switch_latency_ps, d.switch_latency_ps);
    EXPECT_EQ(p.buffer_packets, d.buffer_packets);
    EXPECT_EQ(p.error_rate, d.error_rate);
    EXPECT_EQ(p.retry_latency_ps, d.retry_latency_ps);
}

}  // namespace

// Issue 18: a long message is extrapolated from two shorter ones in the steady state; it must
// agree with simulating every packet, on one path and sprayed over several, clean and with retries.
TEST(PacketPath, LongMessagesExtrapolateTheSteadyState) {
    LinkParams l = test::ub_link();
    for (const std::size_t paths : {std::size_t{1}, std::size_t{3}}) {
        std::vector<std::vector<LinkParams>> chains(paths, std::vector<LinkParams>{l, l});
        const uint64_t bytes = 40000 * l.mtu_bytes + 123;  // 40,001 packets, a short tail
        PacketPath exact(chains, 3), bulk(chains, 3);
        exact.set_exact_packets(uint64_t{1} << 20);
        bulk.set_exact_packets(4096);
        const auto e = exact.send(bytes, LinkOp::write);
        const auto b = bulk.send(bytes, LinkOp::write);
        EXPECT_EQ(b.packets, e.packets);
        EXPECT_EQ(b.delivered, e.delivered);
        EXPECT_NEAR(static_cast<double>(b.completion_ps), static_cast<double>(e.completion_ps),
                    1e-6 * static_cast<double>(e.completion_ps))
            << paths << " paths";
        EXPECT_EQ(b.transmissions, e.transmissions);
    }
    l.error_rate = 1e-3;
    std::vector<std::vector<LinkParams>> chains(2, std::vector<LinkParams>{l, l});
    PacketPath exact(chains, 9), bulk(chains, 9);
    exact.set_exact_packets(uint64_t{1} << 20);
    bulk.set_exact_packets(8192);
    const auto e = exact.send(100000 * l.mtu_bytes, LinkOp::read);
    const auto b = bulk.send(100000 * l.mtu_bytes, LinkOp::read);
    EXPECT_NEAR(static_cast<double>(b.completion_ps), static_cast<double>(e.completion_ps),
                0.01 * static_cast<double>(e.completion_ps));
    EXPECT_NEAR(static_cast<double>(b.retries), static_cast<double>(e.retries),
                0.3 * static_cast<double>(e.retries) + 20);
}

}  // namespace asim
