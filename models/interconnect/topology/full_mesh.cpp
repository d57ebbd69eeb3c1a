// `full_mesh`: a link between every two dies of a node; every route is the direct link.
#include "models/interconnect/topology/topology.h"

namespace asim {
namespace {

class FullMesh final : public NodeTopology {
public:
    explicit FullMesh(const TopologyParams& t)
        : m_dies_per_node(t.dies_per_node), m_nodes(t.nodes()) {}

    void build(GraphBuilder& g) override {
        const uint32_t m = m_dies_per_node;
        for (uint32_t n = 0; n < m_nodes; ++n) {
            const uint32_t base = n * m;
            for (uint32_t i = 0; i < m; ++i)
                for (uint32_t j = i + 1; j < m; ++j)
                    g.add_duplex(base + i, base + j, LinkClass::die);
        }
    }

    bool route(uint32_t src, uint32_t dst, std::size_t,
               std::vector<VertexPath>& out) const override {
        out.push_back({src, dst});
        return true;
    }

    std::string summary() const override { return "full_mesh"; }

private:
    uint32_t m_dies_per_node;
    uint32_t m_nodes;
};

}  // namespace

ASIM_REGISTER(node_topology_registry(), full_mesh, "a link between every two dies of the node", {},
              [](const ParamValues&, const TopologyParams& t) {
                  return std::make_unique<FullMesh>(t);
              });

}  // namespace asim
