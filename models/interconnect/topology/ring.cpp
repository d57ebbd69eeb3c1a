// `ring`: the dies of a node in a ring, unidirectional or bidirectional. Routes take the shorter
// direction (both, as two equal-cost paths, when the two are equally long).
#include <fmt/format.h>

#include "models/interconnect/topology/topology.h"

namespace asim {
namespace {

class Ring final : public NodeTopology {
public:
    Ring(const ParamValues& v, const TopologyParams& t)
        : m_bidirectional(v.boolean("bidirectional")),
          m_dies_per_node(t.dies_per_node),
          m_nodes(t.nodes()) {}

    void build(GraphBuilder& g) override {
        const uint32_t m = m_dies_per_node;
        if (m < 2) return;
        for (uint32_t n = 0; n < m_nodes; ++n) {
            const uint32_t base = n * m;
            for (uint32_t i = 0; i < m; ++i) {
                if (m == 2 && i == 1) break;  // two dies: one cable, not two
                if (m_bidirectional) {
                    g.add_duplex(base + i, base + (i + 1) % m, LinkClass::die);
                } else {
                    g.add_link(base + i, base + (i + 1) % m, LinkClass::die);
                }
            }
            if (m == 2 && !m_bidirectional) g.add_link(base + 1, base, LinkClass::die);
        }
    }

    bool route(uint32_t src, uint32_t dst, std::size_t max_paths,
               std::vector<VertexPath>& out) const override {
        const uint32_t m = m_dies_per_node, base = src / m * m, a = src - base, b = dst - base;
        const uint32_t cw = (b + m - a) % m, ccw = (a + m - b) % m;
        auto walk = [&](int dir, uint32_t steps) {
            VertexPath v{src};
            for (uint32_t s = 1; s <= steps; ++s)
                v.push_back(base + (a + m + static_cast<uint32_t>(dir) * s) % m);
            out.push_back(std::move(v));
        };
        if (!m_bidirectional || cw < ccw) {
            walk(1, cw);
        } else if (ccw < cw) {
            walk(-1, ccw);
        } else {
            walk(1, cw);
            if (max_paths > 1) walk(-1, ccw);
        }
        return true;
    }

    std::string summary() const override {
        return m_bidirectional ? "ring (bidirectional)" : "ring (unidirectional)";
    }

private:
    bool m_bidirectional;
    uint32_t m_dies_per_node;
    uint32_t m_nodes;
};

}  // namespace

ASIM_REGISTER(node_topology_registry(), ring,
              "the node's dies in a ring; routes take the shorter direction",
              {Param::boolean("bidirectional", "links in both directions").dflt("true")},
              [](const ParamValues& v, const TopologyParams& t) {
                  return std::make_unique<Ring>(v, t);
              });

}  // namespace asim
