// Routing policies (issue 14): `minimal` sprays a transfer over the equal-cost paths, `ecmp_hash`
// pins each pair to one of them, and a policy registered from this test file, with a key of its
// own, is selectable from YAML, listed by `params` and routes the traffic it is asked to.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "models/common/config.h"
#include "models/common/errors.h"
#include "models/interconnect/network/flow_network.h"
#include "models/interconnect/network_params.h"

namespace asim {
namespace {

// Takes the `test_path_index`-th equal-cost path (the last one when there are fewer).
class TestNth final : public Routing {
public:
    explicit TestNth(std::size_t index) : m_index(index) {}
    std::vector<Path> routes(const Topology& topology, uint32_t src, uint32_t dst, std::size_t,
                             const std::vector<char>& down) const override {
        std::vector<Path> paths = topology.routes(src, dst, 64, down);
        if (paths.empty()) return paths;
        return {paths[std::min(m_index, paths.size() - 1)]};
    }

private:
    std::size_t m_index;
};

}  // namespace

ASIM_REGISTER(
    routing_registry(), test_nth, "test only: the n-th equal-cost path",
    {Param::integer("test_path_index", "", "which equal-cost path").dflt("0").range(0, 63)},
    [](const ParamValues& v) {
        return std::make_unique<TestNth>(static_cast<std::size_t>(v.integer("test_path_index")));
    });

namespace {

// Four dies in a bidirectional ring: die 0 reaches die 2 both ways round, two hops each. Links
// alpha-beta: 25 GB/s, 1 us, 4 KiB packets without headers.
NetworkParams parse(const std::string& routing_keys) {
    const std::string yaml = fmt::format(R"(network:
  dies: 4
  max_paths: 4
{}  node:
    dies: 4
    topology: ring
    link: {{lanes: 1, lane_rate: 200Gbps, mtu: 4KiB, header: 0B, propagation: 1us}}
)",
                                         routing_keys);
    const Config c = Config::from_string(yaml, "t.yaml");
    return parse_network_params(c.root().child("network"));
}

constexpr uint64_t kBytes = 64ull << 20;
constexpr double kBeta = 25e9;
constexpr double kPacketPs = 4096 / kBeta * 1e12;

int64_t transfer_ps(const NetworkParams& p, uint32_t src, uint32_t dst) {
    const Topology t(p.topology);
    FlowNetwork net(t, p.max_paths, make_routing(p));
    int64_t done = -1;
    net.start_transfer(src, dst, kBytes, LinkOp::write, 0, [&](int64_t at) { done = at; });
    net.run();
    return done;
}

TEST(Routing, MinimalSpraysOverBothDirectionsAndEcmpHashPinsOne) {
    const NetworkParams minimal = parse("");
    EXPECT_EQ(minimal.routing, "minimal");
    EXPECT_NEAR(static_cast<double>(transfer_ps(minimal, 0, 2)),
                2e6 + kPacketPs + kBytes / (2 * kBeta) * 1e12, 2.0);
    const NetworkParams hashed = parse("  routing: ecmp_hash\n");
    EXPECT_NEAR(static_cast<double>(transfer_ps(hashed, 0, 2)),
                2e6 + kPacketPs + kBytes / kBeta * 1e12, 2.0);
    // The pair always hashes to the same path.
    const Topology t(hashed.topology);
    const auto routing = make_routing(hashed);
    const auto first = routing->routes(t, 0, 2, 4, {});
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(routing->routes(t, 0, 2, 4, {}), first);
}

TEST(Routing, ATestOnlyPolicyIsChosenFromYamlWithItsOwnKey) {
    const NetworkParams p = parse("  routing: test_nth\n  test_path_index: 1\n");
    ASSERT_EQ(p.routing, "test_nth");
    EXPECT_EQ(p.routing_params.integer("test_path_index"), 1);
    const Topology t(p.topology);
    const auto routes = make_routing(p)->routes(t, 0, 2, 4, {});
    ASSERT_EQ(routes.size(), 1u);
    EXPECT_EQ(t.link_name(routes[0][0]), "die0->die3");  // the second way round
    EXPECT_EQ(
        t.link_name(make_routing(parse("  routing: test_nth\n"))->routes(t, 0, 2, 4, {})[0][0]),
        "die0->die1");
    EXPECT_NEAR(static_cast<double>(transfer_ps(p, 0, 2)), 2e6 + kPacketPs + kBytes / kBeta * 1e12,
                2.0);
    bool listed = false;
    for (const ParamRow& row : param_rows())
        if (row.key == "network.test_path_index" && row.implementation == "test_nth") listed = true;
    EXPECT_TRUE(listed) << "network.test_path_index is not listed under test_nth";
}

TEST(Routing, AnUnknownPolicyListsTheRegisteredOnes) {
    std::string what = "(accepted)";
    try {
        parse("  routing: ecmp_hsah\n");
    } catch (const ConfigError& e) {
        what = e.what();
    }
    EXPECT_NE(what.find("network.routing"), std::string::npos) << what;
    EXPECT_NE(what.find("ecmp_hash"), std::string::npos) << what;
    EXPECT_NE(what.find("minimal"), std::string::npos) << what;
    EXPECT_NE(what.find("test_nth"), std::string::npos) << what;
}

}  // namespace
}  // namespace asim
