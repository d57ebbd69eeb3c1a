#include "models/interconnect/noc/noc.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

#include "models/common/config.h"
#include "models/common/params.h"

namespace asim {

std::vector<std::pair<std::string, std::string>> NocParams::validate() const {
    std::vector<std::pair<std::string, std::string>> problems;
    if (topology == Topology::kMesh && mesh_columns == 0)
        problems.emplace_back("mesh_columns", "must be at least 1");
    return problems;
}

namespace {
const ChoiceNames<NocParams::Topology> kTopologies{{"crossbar", NocParams::Topology::kCrossbar},
                                                   {"mesh", NocParams::Topology::kMesh}};
const ParamTable kNoc(
    {"die.noc"}, "On-die network",
    {Param::choice("topology", kTopologies, "crossbar (a latency per pair) or a 2-D mesh"),
     Param::integer("mesh_columns", "routers", "(mesh) routers per row; the cores fill rows of it")
         .range(1, 1024)
         .dflt_from("required for a mesh"),
     Param::real("link_bytes_per_cycle", "B/cycle",
                 "(mesh) width of a mesh link; 0: links not modelled (bandwidth at the endpoints)")
         .dflt("0")
         .range(0, 1e6),
     Param::integer("hop_cycles", "cycles", "router pipeline per hop").range(0, 1000)});
}  // namespace

NocParams parse_noc_params(const ConfigNode& node) {
    NocParams p;
    p.topology = kNoc.choice(node, "topology", kTopologies);
    if (p.topology == NocParams::Topology::kMesh) {
        p.mesh_columns = static_cast<uint32_t>(kNoc.integer(node, "mesh_columns"));
        p.link_bytes_per_cycle = kNoc.real(node, "link_bytes_per_cycle");
    } else {
        // Known, unused: --set topology=crossbar on a mesh preset works.
        node.has("mesh_columns");
        node.has("link_bytes_per_cycle");
    }
    p.hop_cycles = static_cast<uint32_t>(kNoc.integer(node, "hop_cycles"));
    if (!node.problems_reported()) {
        for (const auto& [key, message] : p.validate()) node.report(key, message);
    }
    return p;
}

NocRoutes::NocRoutes(const NocParams& params, uint32_t cores, uint32_t l2_slices,
                     uint32_t hbm_controllers)
    : m_params(params), m_cores(cores) {
    if (params.topology == NocParams::Topology::kMesh) {
        m_columns = std::max<uint32_t>(1, params.mesh_columns);
        const uint32_t rows =
            std::max<uint32_t>(1, (std::max<uint32_t>(cores, 1) + m_columns - 1) / m_columns);
        m_routers = m_columns * rows;
        m_links = 2 * rows * (m_columns - 1) + 2 * m_columns * (rows - 1);
    }
    // Slices spread evenly over the routers (a crossbar has one "router": every pair is one hop).
    for (uint32_t s = 0; s < l2_slices; ++s) {
        m_slice_router.push_back(
            static_cast<uint32_t>(uint64_t{s} * m_routers / std::max<uint32_t>(1, l2_slices)));
    }
    // HBM controllers on the left and right edges, rows spread top to bottom.
    const uint32_t rows = m_routers / m_columns;
    for (uint32_t h = 0; h < hbm_controllers; ++h) {
        const uint32_t per_side = (hbm_controllers + 1) / 2;
        const uint32_t row =
            static_cast<uint32_t>(uint64_t{h / 2} * rows / std::max<uint32_t>(1, per_side));
        m_hbm_router.push_back(row * m_columns + (h % 2 == 0 ? 0 : m_columns - 1));
    }
}

// Link ids: horizontal links of row r between columns c and c + 1 are 2 (r (C - 1) + c) (east)
// and + 1 (west); vertical links of column c between rows r and r + 1 follow them, 2 (c (R - 1)
// + r) (south) and + 1 (north).
void NocRoutes::route_links(uint32_t a, uint32_t b, std::vector<uint32_t>& out) const {
    const uint32_t rows = m_routers / m_columns;
    uint32_t x = a % m_columns, y = a / m_columns;
    const uint32_t bx = b % m_columns, by = b / m_columns;
    while (x != bx) {
        const bool east = bx > x;
        const uint32_t c = east ? x : x - 1;
        out.push_back(2 * (y * (m_columns - 1) + c) + (east ? 0 : 1));
        x = east ? x + 1 : x - 1;
    }
    const uint32_t vertical_base = 2 * rows * (m_columns - 1);
    while (y != by) {
        const bool south = by > y;
        const uint32_t r = south ? y : y - 1;
        out.push_back(vertical_base + 2 * (x * (rows - 1) + r) + (south ? 0 : 1));
        y = south ? y + 1 : y - 1;
    }
}

std::vector<LinkShare> NocRoutes::link_shares(uint32_t router, bool to_slices) const {
    std::vector<double> load(m_links, 0.0);
    std::vector<uint32_t> path;
    const double share = 1.0 / static_cast<double>(std::max<std::size_t>(1, m_slice_router.size()));
    for (uint32_t s : m_slice_router) {
        path.clear();
        if (to_slices) {
            route_links(router, s, path);
        } else {
            route_links(s, router, path);
        }
        for (uint32_t l : path) load[l] += share;
    }
    std::vector<LinkShare> shares;
    for (uint32_t l = 0; l < m_links; ++l) {
        if (load[l] > 0) shares.push_back({l, load[l]});
    }
    return shares;
}

uint32_t NocRoutes::hops(uint32_t from_router, uint32_t to_router) const {
    if (m_params.topology == NocParams::Topology::kCrossbar) return 1;
    const int dx =
        static_cast<int>(from_router % m_columns) - static_cast<int>(to_router % m_columns);
    const int dy =
        static_cast<int>(from_router / m_columns) - static_cast<int>(to_router / m_columns);
    return 1 +
           static_cast<uint32_t>(std::abs(dx) + std::abs(dy));  // the router of entry counts as one
}

double NocRoutes::mean_hops_slice_to_hbm() const {
    if (m_slice_router.empty() || m_hbm_router.empty())
        return m_params.topology == NocParams::Topology::kCrossbar;
    double sum = 0;
    for (uint32_t s : m_slice_router) {
        uint32_t best = std::numeric_limits<uint32_t>::max();
        for (uint32_t h : m_hbm_router) best = std::min(best, hops(s, h));
        sum += best;
    }
    return sum / static_cast<double>(m_slice_router.size());
}

std::vector<double> NocRoutes::mean_hops_to_slices() const {
    std::vector<double> mean(m_slice_router.size(), 0.0);
    for (uint32_t s = 0; s < m_slice_router.size(); ++s) {
        for (uint32_t c = 0; c < m_cores; ++c) mean[s] += hops_core_to_slice(c, s);
        mean[s] /= std::max<uint32_t>(1, m_cores);
    }
    return mean;
}

double NocRoutes::mean_hops_core_to_slice() const {
    if (m_cores == 0 || m_slice_router.empty()) return 0;
    double sum = 0;
    for (uint32_t c = 0; c < m_cores; ++c) {
        for (uint32_t s = 0; s < m_slice_router.size(); ++s) sum += hops_core_to_slice(c, s);
    }
    return sum / static_cast<double>(m_cores) / static_cast<double>(m_slice_router.size());
}

}  // namespace asim
