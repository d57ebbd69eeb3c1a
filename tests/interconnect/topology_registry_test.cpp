// Topologies registered from a test file (issue 14): a node topology and a scale-out, each with a
// key of its own, selectable by name from the platform's YAML, listed by `params`, checked like
// the built-in ones, and carrying traffic in the alpha-beta time their shape gives.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "models/common/config.h"
#include "models/common/errors.h"
#include "models/interconnect/network/flow_network.h"
#include "models/interconnect/network_params.h"

namespace asim {
namespace {

// `hubs` hub switches per node (`hub.nN.K`), every die with a link to each; routes go through
// every hub, so a transfer spreads over its die's links to them.
class TestHub final : public NodeTopology {
public:
    TestHub(const ParamValues& v, const TopologyParams& t)
        : m_hubs(static_cast<uint32_t>(v.integer("hubs"))),
          m_dies(t.dies),
          m_dies_per_node(t.dies_per_node),
          m_nodes(t.nodes()) {}

    Problems problems() const override {
        if (m_dies_per_node < 2) return {{"dies", "a hub joins at least two dies"}};
        return {};
    }
    void build(GraphBuilder& g) override {
        m_base = g.add_vertices(m_nodes * m_hubs);
        for (uint32_t d = 0; d < m_dies; ++d)
            for (uint32_t h = 0; h < m_hubs; ++h) g.add_duplex(d, hub(d, h), LinkClass::die);
    }
    bool route(uint32_t src, uint32_t dst, std::size_t max_paths,
               std::vector<VertexPath>& out) const override {
        for (uint32_t h = 0; h < m_hubs && out.size() < max_paths; ++h)
            out.push_back({src, hub(src, h), dst});
        return true;
    }
    std::string vertex_name(uint32_t v) const override {
        if (v < m_base || v >= m_base + m_nodes * m_hubs) return "";
        return fmt::format("hub.n{}.{}", (v - m_base) / m_hubs, (v - m_base) % m_hubs);
    }
    std::string summary() const override { return fmt::format("test_hub, {} hubs", m_hubs); }

private:
    uint32_t hub(uint32_t die, uint32_t h) const {
        return m_base + die / m_dies_per_node * m_hubs + h;
    }
    uint32_t m_hubs, m_dies, m_dies_per_node, m_nodes;
    uint32_t m_base = 0;
};

// One core switch (`core`) with a NIC port from every die.
class TestCore final : public ScaleOutTopology {
public:
    explicit TestCore(const TopologyParams& t) : m_dies(t.dies) {}
    bool has_nic() const override { return true; }
    void build(GraphBuilder& g, const NodeTopology&) override {
        m_core = g.add_vertices(1);
        for (uint32_t d = 0; d < m_dies; ++d) g.add_duplex(d, m_core, LinkClass::nic);
    }
    void route(uint32_t src, uint32_t dst, std::size_t,
               std::vector<VertexPath>& out) const override {
        out.push_back({src, m_core, dst});
    }
    std::string vertex_name(uint32_t v) const override { return v == m_core ? "core" : ""; }
    std::string summary() const override { return "test_core"; }

private:
    uint32_t m_dies;
    uint32_t m_core = 0;
};

}  // namespace

ASIM_REGISTER(node_topology_registry(), test_hub, "test only: hub switches in every node",
              {Param::integer("hubs", "switches", "hub switches per node").dflt("1").range(1, 16)},
              [](const ParamValues& v, const TopologyParams& t) {
                  return std::make_unique<TestHub>(v, t);
              });

ASIM_REGISTER(scale_out_registry(), test_core, "test only: one core switch, a NIC per die", {},
              [](const ParamValues&, const TopologyParams& t) {
                  return std::make_unique<TestCore>(t);
              });

namespace {

// Alpha-beta links: 25 GB/s, 1 us per hop, 4 KiB packets without headers.
constexpr const char* kLink =
    "{lanes: 1, lane_rate: 200Gbps, mtu: 4KiB, header: 0B, propagation: 1us}";

NetworkParams parse(const std::string& node_keys, const std::string& tail = "",
                    uint32_t nodes = 1) {
    const std::string yaml = fmt::format(R"(network:
  dies: {}
  max_paths: 4
  node:
    dies: 4
{}    link: {}
{})",
                                         4 * nodes, node_keys, kLink, tail);
    const Config c = Config::from_string(yaml, "t.yaml");
    return parse_network_params(c.root().child("network"));
}

// The time of one transfer of `bytes` from `src` to `dst`, alone on the network, in ps.
int64_t transfer_ps(const Topology& t, uint32_t src, uint32_t dst, uint64_t bytes) {
    FlowNetwork net(t, 4);
    int64_t done = -1;
    net.start_transfer(src, dst, bytes, LinkOp::write, 0, [&](int64_t at) { done = at; });
    net.run();
    EXPECT_EQ(net.pending_transfers(), 0u);
    return done;
}

constexpr uint64_t kBytes = 64ull << 20;
constexpr double kBeta = 25e9;                     // B/s per link
constexpr double kPacketPs = 4096 / kBeta * 1e12;  // one packet stored and forwarded at the hub

TEST(TopologyRegistry, ATestOnlyNodeTopologyIsChosenFromYamlAndCarriesTraffic) {
    const NetworkParams p = parse("    topology: test_hub\n    hubs: 2\n");
    ASSERT_EQ(p.topology.node_topology, "test_hub");
    EXPECT_EQ(p.topology.node_params.integer("hubs"), 2);
    const Topology t(p.topology);
    EXPECT_EQ(t.vertex_name(4), "hub.n0.0");
    EXPECT_GE(t.find_link("die0->hub.n0.1"), 0);
    // Two hops of 1 us, one packet stored at the hub, and the bytes over the two hubs' links.
    const double expected = 2e6 + kPacketPs + kBytes / (2 * kBeta) * 1e12;
    EXPECT_NEAR(static_cast<double>(transfer_ps(t, 0, 3, kBytes)), expected, 2.0);
    // One hub: the same path at half the bandwidth (the key is the part's own, and it counts).
    const Topology one(parse("    topology: test_hub\n").topology);
    EXPECT_NEAR(static_cast<double>(transfer_ps(one, 0, 3, kBytes)),
                2e6 + kPacketPs + kBytes / kBeta * 1e12, 2.0);
}

TEST(TopologyRegistry, ATestOnlyScaleOutJoinsTheNodes) {
    const NetworkParams p = parse("    topology: test_hub\n",
                                  fmt::format("  scale_out:\n    topology: test_core\n    nic: {}\n"
                                              "    uplink: {{}}\n",
                                              kLink),
                                  2);
    const Topology t(p.topology);
    ASSERT_NE(t.scale_out(), nullptr);
    EXPECT_EQ(t.scale_out()->summary(), "test_core");
    // die0 -> core -> die5 over the NIC links (the node's hub is not on the way).
    EXPECT_GE(t.find_link("die5->core"), 0);
    EXPECT_NEAR(static_cast<double>(transfer_ps(t, 0, 5, kBytes)),
                2e6 + kPacketPs + kBytes / kBeta * 1e12, 2.0);
}

TEST(TopologyRegistry, TheRegistriesListTheTestPartsAndTheirKeys) {
    EXPECT_TRUE(node_topology_registry().contains("test_hub"));
    EXPECT_TRUE(node_topology_registry().contains("torus"));
    EXPECT_TRUE(scale_out_registry().contains("test_core"));
    bool listed = false;
    for (const ParamRow& row : param_rows()) {
        if (row.key == "network.node.hubs" && row.implementation == "test_hub") listed = true;
    }
    EXPECT_TRUE(listed) << "network.node.hubs is not listed under test_hub";
    EXPECT_NE(param_markdown("network.node").find("(test_hub) hub switches per node"),
              std::string::npos);
}

TEST(TopologyRegistry, BadInputNamesTheRegisteredPartsAndTheOwnerOfAKey) {
    auto error_of = [](const std::string& node_keys) {
        try {
            parse(node_keys);
        } catch (const ConfigError& e) {
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    const std::string unknown = error_of("    topology: test_hbu\n");
    EXPECT_NE(unknown.find("network.node.topology"), std::string::npos) << unknown;
    EXPECT_NE(unknown.find("unknown node topology 'test_hbu'"), std::string::npos) << unknown;
    EXPECT_NE(unknown.find("test_hub"), std::string::npos) << unknown;
    EXPECT_NE(unknown.find("torus"), std::string::npos) << unknown;
    const std::string foreign = error_of("    topology: ring\n    hubs: 2\n");
    EXPECT_NE(foreign.find("network.node.hubs"), std::string::npos) << foreign;
    EXPECT_NE(foreign.find("'test_hub', not of the chosen 'ring'"), std::string::npos) << foreign;
    const std::string dims = error_of("    topology: torus\n    dims: [3, 3]\n");
    EXPECT_NE(dims.find("network.node.dims"), std::string::npos) << dims;
    EXPECT_NE(dims.find("must equal node.dies (4)"), std::string::npos) << dims;
    const std::string range = error_of("    topology: test_hub\n    hubs: 17\n");
    EXPECT_NE(range.find("network.node.hubs"), std::string::npos) << range;
}

}  // namespace
}  // namespace asim
