// `mesh` and `torus`: the dies of a node on an n-dimensional grid (`dims`, first dimension
// fastest), the torus with wrap-around links in every dimension longer than 2. Routes go in
// dimension order, the torus the shorter way round each dimension.
#include <fmt/format.h>

#include "models/interconnect/topology/topology.h"

namespace asim {
namespace {

class Grid final : public NodeTopology {
public:
    Grid(const ParamValues& v, const TopologyParams& t, bool torus)
        : m_torus(torus), m_dies_per_node(t.dies_per_node), m_nodes(t.nodes()) {
        if (v.has("dims")) {
            for (int64_t d : v.integer_list("dims")) m_dims.push_back(static_cast<uint32_t>(d));
        }
    }

    Problems problems() const override {
        uint64_t product = 1;
        for (uint32_t d : m_dims) product *= d;
        if (m_dims.empty() || product != m_dies_per_node)
            return {{"dims", fmt::format("the dimensions' product ({}) must equal node.dies ({})",
                                         product, m_dies_per_node)}};
        return {};
    }

    void build(GraphBuilder& g) override {
        const uint32_t m = m_dies_per_node;
        for (uint32_t n = 0; n < m_nodes; ++n) {
            const uint32_t base = n * m;
            uint32_t stride = 1;
            for (uint32_t d : m_dims) {
                for (uint32_t i = 0; i < m; ++i) {
                    const uint32_t c = (i / stride) % d;
                    if (c + 1 < d) {
                        g.add_duplex(base + i, base + i + stride, LinkClass::die);
                    } else if (m_torus && d > 2) {
                        g.add_duplex(base + i, base + i - c * stride, LinkClass::die);
                    }
                }
                stride *= d;
            }
        }
    }

    bool route(uint32_t src, uint32_t dst, std::size_t,
               std::vector<VertexPath>& out) const override {
        const uint32_t base = src / m_dies_per_node * m_dies_per_node, b = dst - base;
        VertexPath v{src};
        uint32_t cur = src - base, stride = 1;
        for (uint32_t d : m_dims) {
            const uint32_t from = (cur / stride) % d, to = (b / stride) % d;
            int dir = to > from ? 1 : -1;
            uint32_t steps = to > from ? to - from : from - to;
            if (m_torus && d > 2 && steps * 2 > d) {
                dir = -dir;
                steps = d - steps;
            }
            uint32_t c = from;
            for (uint32_t s = 0; s < steps; ++s) {
                const uint32_t next = (c + d + static_cast<uint32_t>(dir)) % d;
                cur = cur - c * stride + next * stride;
                c = next;
                v.push_back(base + cur);
            }
            stride *= d;
        }
        out.push_back(std::move(v));
        return true;
    }

    std::string summary() const override {
        std::string dims;
        for (uint32_t d : m_dims) dims += (dims.empty() ? "" : "x") + std::to_string(d);
        return std::string(m_torus ? "torus" : "mesh") + (dims.empty() ? "" : " " + dims);
    }

private:
    bool m_torus;
    uint32_t m_dies_per_node;
    uint32_t m_nodes;
    std::vector<uint32_t> m_dims;
};

Param dims() {
    return Param::integer_list("dims", "dies", "extent of each dimension (product = node.dies)")
        .range(1, 1 << 20);
}

}  // namespace

ASIM_REGISTER(node_topology_registry(), mesh,
              "an n-dimensional grid of the node's dies; dimension-order routes", {dims()},
              [](const ParamValues& v, const TopologyParams& t) {
                  return std::make_unique<Grid>(v, t, false);
              });

ASIM_REGISTER(node_topology_registry(), torus,
              "an n-dimensional grid with wrap-around links; dimension-order routes, the shorter "
              "way round",
              {dims()}, [](const ParamValues& v, const TopologyParams& t) {
                  return std::make_unique<Grid>(v, t, true);
              });

}  // namespace asim
