// `clos`: the multi-plane two-tier Clos of CloudMatrix384 (C1 §3.3.3). Per plane, every node's
// first-level switch chip (the node topology's, `switch`) links to each of the plane's
// `l2_per_plane` second-level chips (`l2.pP.K`). Routes between nodes go die -> L1 -> L2 -> L1 ->
// die over every plane (hashed start) and L2 chip: planes first, then the L2 chip from the source
// die's index in its node (source-mod-k), so one node's dies leave through different L2 chips
// instead of colliding. A node's uplinks to L2 chip k of every plane, and those chips' links back,
// are bundles.
#include <fmt/format.h>

#include "models/interconnect/topology/topology.h"

namespace asim {
namespace {

class Clos final : public ScaleOutTopology {
public:
    Clos(const ParamValues& v, const TopologyParams& t)
        : m_l2_per_plane(v.has("l2_per_plane") ? static_cast<uint32_t>(v.integer("l2_per_plane"))
                                               : 0),
          m_dies_per_node(t.dies_per_node),
          m_nodes(t.nodes()) {}

    Problems problems(const NodeTopology& node) const override {
        Problems p;
        if (node.switch_planes() == 0)
            p.emplace_back("scale_out.topology",
                           "clos joins the nodes' L1 switch chips: node.topology must be switch");
        if (m_l2_per_plane == 0) p.emplace_back("scale_out.l2_per_plane", "must be >= 1");
        return p;
    }

    void build(GraphBuilder& g, const NodeTopology& node) override {
        m_node = &node;
        m_planes = node.switch_planes();
        m_l2_base = g.add_vertices(m_planes * m_l2_per_plane);
        std::vector<uint32_t> up, down;
        for (uint32_t n = 0; n < m_nodes; ++n) {
            const uint32_t first = g.link_count();
            for (uint32_t p = 0; p < m_planes; ++p)
                for (uint32_t k = 0; k < m_l2_per_plane; ++k)
                    g.add_duplex(node.switch_chip(n, p), l2(p, k), LinkClass::uplink);
            // Node n's uplinks to L2 chip k of every plane, and those chips' links back.
            for (uint32_t k = 0; k < m_l2_per_plane; ++k) {
                up.clear();
                down.clear();
                for (uint32_t p = 0; p < m_planes; ++p) {
                    up.push_back(first + 2 * (p * m_l2_per_plane + k));
                    down.push_back(up.back() + 1);
                }
                g.add_bundle(up);
                g.add_bundle(down);
            }
        }
    }

    void route(uint32_t src, uint32_t dst, std::size_t max_paths,
               std::vector<VertexPath>& out) const override {
        const uint32_t h = ecmp_hash(src, dst), total = m_planes * m_l2_per_plane,
                       local = src % m_dies_per_node, ns = src / m_dies_per_node,
                       nd = dst / m_dies_per_node;
        for (uint32_t i = 0; i < total && out.size() < max_paths; ++i) {
            const uint32_t p = (h + i) % m_planes, k = (local + i / m_planes) % m_l2_per_plane;
            out.push_back(
                {src, m_node->switch_chip(ns, p), l2(p, k), m_node->switch_chip(nd, p), dst});
        }
    }

    std::string vertex_name(uint32_t v) const override {
        if (v < m_l2_base || v >= m_l2_base + m_planes * m_l2_per_plane) return "";
        return fmt::format("l2.p{}.{}", (v - m_l2_base) / m_l2_per_plane,
                           (v - m_l2_base) % m_l2_per_plane);
    }

    std::string summary() const override {
        return fmt::format("clos, {} L2 switches per plane", m_l2_per_plane);
    }

private:
    uint32_t l2(uint32_t plane, uint32_t k) const { return m_l2_base + plane * m_l2_per_plane + k; }

    uint32_t m_l2_per_plane;
    uint32_t m_dies_per_node;
    uint32_t m_nodes;
    const NodeTopology* m_node = nullptr;
    uint32_t m_planes = 0;
    uint32_t m_l2_base = 0;
};

}  // namespace

ASIM_REGISTER(scale_out_registry(), clos,
              "per plane, every node's L1 switch chip links to each of the plane's L2 chips",
              {Param::integer("l2_per_plane", "switches", "second-level switches per plane")
                   .range(1, 1 << 16)},
              [](const ParamValues& v, const TopologyParams& t) {
                  return std::make_unique<Clos>(v, t);
              });

}  // namespace asim
