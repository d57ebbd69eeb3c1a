// `custom`: the node's links from an edge list (die pairs, the same in every node, each a link
// in both directions). No structured routes: the graph is searched, breadth first.
#include <fmt/format.h>

#include "models/interconnect/topology/topology.h"

namespace asim {
namespace {

class Custom final : public NodeTopology {
public:
    Custom(const ParamValues& v, const TopologyParams& t)
        : m_dies_per_node(t.dies_per_node), m_nodes(t.nodes()) {
        if (v.has("edges")) m_flat = v.integer_list("edges");
    }

    Problems problems() const override {
        Problems p;
        if (m_flat.size() % 2 != 0)
            p.emplace_back("edges", "a list of die pairs [a0, b0, a1, b1, ...]: odd length");
        for (std::size_t i = 0; i + 1 < m_flat.size(); i += 2) {
            const int64_t a = m_flat[i], b = m_flat[i + 1];
            if (a < 0 || b < 0 || a >= m_dies_per_node || b >= m_dies_per_node || a == b)
                p.emplace_back("edges", fmt::format("edge [{}, {}] names a die outside 0..{} of "
                                                    "the node (or a loop)",
                                                    a, b, m_dies_per_node - 1));
        }
        return p;
    }

    void build(GraphBuilder& g) override {
        for (uint32_t n = 0; n < m_nodes; ++n) {
            const uint32_t base = n * m_dies_per_node;
            for (std::size_t i = 0; i + 1 < m_flat.size(); i += 2)
                g.add_duplex(base + static_cast<uint32_t>(m_flat[i]),
                             base + static_cast<uint32_t>(m_flat[i + 1]), LinkClass::die);
        }
    }

    bool route(uint32_t, uint32_t, std::size_t, std::vector<VertexPath>&) const override {
        return false;
    }

    std::string summary() const override { return "custom"; }
    std::string connectivity_key() const override { return "edges"; }

private:
    uint32_t m_dies_per_node;
    uint32_t m_nodes;
    std::vector<int64_t> m_flat;
};

}  // namespace

ASIM_REGISTER(
    node_topology_registry(), custom,
    "links from an edge list, the same in every node; routes searched",
    {Param::integer_list("edges", "", "die pairs [a0, b0, a1, b1, ...]").range(0, 1 << 24)},
    [](const ParamValues& v, const TopologyParams& t) { return std::make_unique<Custom>(v, t); });

}  // namespace asim
