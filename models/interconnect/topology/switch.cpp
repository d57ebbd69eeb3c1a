// `switch`: one first-level switch chip per plane and node (`l1.nK.pP`), every die with one port
// on each plane (CloudMatrix384's 7 L1 UB chips). Routes go through every plane (a hashed first
// one, then the others), so a transfer spreads over the die's ports; a die's ports up and down
// are bundles. A scale-out joins the nodes at these chips (clos.cpp).
#include <fmt/format.h>

#include "models/interconnect/topology/topology.h"

namespace asim {
namespace {

class Switch final : public NodeTopology {
public:
    Switch(const ParamValues& v, const TopologyParams& t)
        : m_planes(v.has("planes") ? static_cast<uint32_t>(v.integer("planes")) : 0),
          m_dies(t.dies),
          m_dies_per_node(t.dies_per_node),
          m_nodes(t.nodes()) {}

    Problems problems() const override {
        if (m_planes == 0) return {{"planes", "must be >= 1"}};
        return {};
    }

    void build(GraphBuilder& g) override {
        m_l1_base = g.add_vertices(m_nodes * m_planes);
        std::vector<uint32_t> up, down;
        for (uint32_t d = 0; d < m_dies; ++d) {
            up.clear();
            down.clear();
            for (uint32_t p = 0; p < m_planes; ++p) {
                up.push_back(g.add_duplex(d, switch_chip(d / m_dies_per_node, p), LinkClass::die));
                down.push_back(up.back() + 1);
            }
            g.add_bundle(up);
            g.add_bundle(down);
        }
    }

    bool route(uint32_t src, uint32_t dst, std::size_t max_paths,
               std::vector<VertexPath>& out) const override {
        const uint32_t h = ecmp_hash(src, dst), node = src / m_dies_per_node;
        for (uint32_t i = 0; i < m_planes && out.size() < max_paths; ++i)
            out.push_back({src, switch_chip(node, (h + i) % m_planes), dst});
        return true;
    }

    std::string vertex_name(uint32_t v) const override {
        if (v < m_l1_base || v >= m_l1_base + m_nodes * m_planes) return "";
        return fmt::format("l1.n{}.p{}", (v - m_l1_base) / m_planes, (v - m_l1_base) % m_planes);
    }

    std::string summary() const override { return fmt::format("switch, {} planes", m_planes); }

    uint32_t switch_planes() const override { return m_planes; }
    uint32_t switch_chip(uint32_t node, uint32_t plane) const override {
        return m_l1_base + node * m_planes + plane;
    }

private:
    uint32_t m_planes;
    uint32_t m_dies;
    uint32_t m_dies_per_node;
    uint32_t m_nodes;
    uint32_t m_l1_base = 0;
};

}  // namespace

ASIM_REGISTER(node_topology_registry(), switch,
              "one switch chip per plane and node, every die with a port on each plane",
              {Param::integer("planes", "", "parallel switch planes").range(1, 1024)},
              [](const ParamValues& v, const TopologyParams& t) {
                  return std::make_unique<Switch>(v, t);
              });

}  // namespace asim
