// `fat_tree`: a two-tier RoCE / UBoE fat-tree. Every die has a NIC port (`scale_out.nic`) to its
// leaf switch (`leafN`, `dies_per_leaf` dies each); every leaf links to every spine (`spineN`).
// Routes between nodes go over the leaf when both dies share it, else over every spine (hashed
// start); a leaf's links to the spines, and theirs back, are bundles.
#include <fmt/format.h>

#include "models/interconnect/topology/topology.h"

namespace asim {
namespace {

class FatTree final : public ScaleOutTopology {
public:
    FatTree(const ParamValues& v, const TopologyParams& t)
        : m_dies_per_leaf(v.has("dies_per_leaf") ? static_cast<uint32_t>(v.integer("dies_per_leaf"))
                                                 : 0),
          m_spines(v.has("spines") ? static_cast<uint32_t>(v.integer("spines")) : 0),
          m_dies(t.dies) {}

    Problems problems(const NodeTopology&) const override {
        Problems p;
        if (m_dies_per_leaf == 0 || m_dies % m_dies_per_leaf != 0)
            p.emplace_back(
                "scale_out.dies_per_leaf",
                fmt::format("{} dies do not fill whole leaves of {}", m_dies, m_dies_per_leaf));
        if (m_spines == 0) p.emplace_back("scale_out.spines", "must be >= 1");
        return p;
    }

    bool has_nic() const override { return true; }

    void build(GraphBuilder& g, const NodeTopology&) override {
        m_leaves = m_dies / m_dies_per_leaf;
        m_leaf_base = g.add_vertices(m_leaves);
        m_spine_base = g.add_vertices(m_spines);
        for (uint32_t d = 0; d < m_dies; ++d) g.add_duplex(d, leaf_of(d), LinkClass::nic);
        std::vector<uint32_t> up, down;
        for (uint32_t l = 0; l < m_leaves; ++l) {
            up.clear();
            down.clear();
            for (uint32_t s = 0; s < m_spines; ++s) {
                up.push_back(g.add_duplex(m_leaf_base + l, m_spine_base + s, LinkClass::uplink));
                down.push_back(up.back() + 1);
            }
            g.add_bundle(up);
            g.add_bundle(down);
        }
    }

    void route(uint32_t src, uint32_t dst, std::size_t max_paths,
               std::vector<VertexPath>& out) const override {
        const uint32_t ls = leaf_of(src), ld = leaf_of(dst);
        if (ls == ld) {
            out.push_back({src, ls, dst});
            return;
        }
        const uint32_t h = ecmp_hash(src, dst);
        for (uint32_t i = 0; i < m_spines && out.size() < max_paths; ++i)
            out.push_back({src, ls, m_spine_base + (h + i) % m_spines, ld, dst});
    }

    std::string vertex_name(uint32_t v) const override {
        if (v >= m_spine_base && v < m_spine_base + m_spines)
            return fmt::format("spine{}", v - m_spine_base);
        if (v >= m_leaf_base && v < m_leaf_base + m_leaves)
            return fmt::format("leaf{}", v - m_leaf_base);
        return "";
    }

    std::string summary() const override {
        return fmt::format("fat_tree, {} dies per leaf, {} spines", m_dies_per_leaf, m_spines);
    }

private:
    uint32_t leaf_of(uint32_t die) const { return m_leaf_base + die / m_dies_per_leaf; }

    uint32_t m_dies_per_leaf;
    uint32_t m_spines;
    uint32_t m_dies;
    uint32_t m_leaves = 0;
    uint32_t m_leaf_base = 0;
    uint32_t m_spine_base = 0;
};

}  // namespace

ASIM_REGISTER(scale_out_registry(), fat_tree,
              "a NIC port per die to its leaf switch; every leaf links to every spine",
              {Param::integer("dies_per_leaf", "", "dies per leaf switch").range(1, 1 << 20),
               Param::integer("spines", "", "spine switches").range(1, 1 << 16)},
              [](const ParamValues& v, const TopologyParams& t) {
                  return std::make_unique<FatTree>(v, t);
              });

}  // namespace asim
