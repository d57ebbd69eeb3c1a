#include "models/interconnect/topology/topology.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "models/common/errors.h"

namespace asim {

namespace {
constexpr uint32_t kUnreached = std::numeric_limits<uint32_t>::max();
}  // namespace

uint32_t ecmp_hash(uint32_t a, uint32_t b) {
    uint64_t z = (static_cast<uint64_t>(a) << 32) ^ b ^ 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return static_cast<uint32_t>(z ^ (z >> 31));
}

NodeTopologyRegistry& node_topology_registry() {
    static NodeTopologyRegistry registry("node topology");
    return registry;
}

ScaleOutRegistry& scale_out_registry() {
    static ScaleOutRegistry registry("scale-out topology");
    return registry;
}

std::unique_ptr<NodeTopology> make_node_topology(const TopologyParams& params) {
    return node_topology_registry().make(params.node_topology, params.node_params, params);
}

std::unique_ptr<ScaleOutTopology> make_scale_out(const TopologyParams& params) {
    return scale_out_registry().make(params.scale_out, params.scale_out_params, params);
}

std::string NodeTopology::vertex_name(uint32_t) const { return ""; }

uint32_t NodeTopology::switch_chip(uint32_t, uint32_t) const {
    throw std::logic_error("switch_chip() of a node topology without switch chips");
}

Problems ScaleOutTopology::problems(const NodeTopology&) const { return {}; }

std::string ScaleOutTopology::vertex_name(uint32_t) const { return ""; }

uint32_t GraphBuilder::add_vertices(uint32_t n) { return m_topology.add_vertex_block(n); }
uint32_t GraphBuilder::add_link(uint32_t a, uint32_t b, LinkClass cls) {
    return m_topology.add_link(a, b, cls);
}
uint32_t GraphBuilder::add_duplex(uint32_t a, uint32_t b, LinkClass cls) {
    return m_topology.add_duplex(a, b, cls);
}
void GraphBuilder::add_bundle(const std::vector<uint32_t>& links) { m_topology.add_bundle(links); }
uint32_t GraphBuilder::link_count() const {
    return static_cast<uint32_t>(m_topology.m_links.size());
}

std::string TopologyParams::problems() const {
    std::string p;
    auto add = [&](const std::string& key, const std::string& what) {
        p += key + ": " + what + "\n";
    };
    if (dies == 0) add("dies", "must be >= 1");
    if (dies_per_node == 0) {
        add("node.dies", "must be >= 1");
        return p;
    }
    if (dies % dies_per_node != 0)
        add("dies", fmt::format("{} dies do not fit whole nodes of {} dies (node.dies)", dies,
                                dies_per_node));
    if (nodes() > 1 && scale_out.empty())
        add("scale_out", fmt::format("{} nodes need a scale_out topology to join them", nodes()));
    if (!node_topology_registry().contains(node_topology)) {
        add("node.topology", node_topology_registry().unknown_message(node_topology));
        return p;
    }
    const auto node = make_node_topology(*this);
    for (const auto& [key, what] : node->problems()) add("node." + key, what);
    if (has_fallback && !(host_copy_bytes_per_s > 0))
        add("node.fallback.host_copy", "the host's forwarding copy bandwidth must be > 0");
    if (!scale_out.empty()) {
        if (!scale_out_registry().contains(scale_out)) {
            add("scale_out.topology", scale_out_registry().unknown_message(scale_out));
        } else {
            for (const auto& [key, what] : make_scale_out(*this)->problems(*node)) add(key, what);
        }
    }
    return p;
}

Topology::Topology(TopologyParams params) : m_params(std::move(params)) {
    const std::string bad = m_params.problems();
    if (!bad.empty()) throw InputError("network." + bad.substr(0, bad.find('\n')));
    const TopologyParams& t = m_params;
    GraphBuilder graph(*this);
    add_vertex_block(t.dies);
    m_node = make_node_topology(t);
    m_node->build(graph);
    if (t.has_fallback) {
        m_host_base = add_vertex_block(t.nodes());
        m_host_tx_base = add_vertex_block(t.nodes());
        for (uint32_t n = 0; n < t.nodes(); ++n)
            add_link(host_rx(n), host_tx(n), LinkClass::host_copy);
        for (uint32_t d = 0; d < t.dies; ++d) {
            add_link(d, host_rx(node_of(d)), LinkClass::fallback);
            add_link(host_tx(node_of(d)), d, LinkClass::fallback);
        }
        // The copy moves whole buffers: one "packet" per fallback packet, no header, no latency
        // of its own (the fallback links' switch_latency holds the host software's).
        m_host_copy_link.lane_rate_bps = t.host_copy_bytes_per_s * 8.0;
        m_host_copy_link.mtu_bytes = t.fallback_link.mtu_bytes;
    }
    if (!t.scale_out.empty()) {
        m_scale_out = make_scale_out(t);
        m_scale_out->build(graph, *m_node);
    }
    for (auto& out : m_out) std::sort(out.begin(), out.end());
    check_connected();
}

Topology::~Topology() = default;

uint32_t Topology::add_vertex_block(uint32_t n) {
    const uint32_t first = m_vertex_count;
    m_vertex_count += n;
    m_out.resize(m_vertex_count);
    return first;
}

uint32_t Topology::add_link(uint32_t a, uint32_t b, LinkClass cls) {
    const uint32_t id = static_cast<uint32_t>(m_links.size());
    m_out[a].emplace_back(b, id);
    m_links.push_back({a, b, cls});
    m_bundle_of.push_back(kNoBundle);
    return id;
}

uint32_t Topology::add_duplex(uint32_t a, uint32_t b, LinkClass cls) {
    const uint32_t id = add_link(a, b, cls);
    add_link(b, a, cls);
    return id;
}

void Topology::add_bundle(const std::vector<uint32_t>& links) {
    if (links.size() < 2) return;  // a single link is its own bundle
    const uint32_t b = bundles();
    for (uint32_t l : links) {
        m_bundle_of[l] = b;
        m_bundle_links.push_back(l);
    }
    m_bundle_start.push_back(static_cast<uint32_t>(m_bundle_links.size()));
}

const LinkParams& Topology::link_params(uint32_t link) const {
    switch (m_links[link].cls) {
        case LinkClass::die:
            return m_params.die_link;
        case LinkClass::fallback:
            return m_params.fallback_link;
        case LinkClass::host_copy:
            return m_host_copy_link;
        case LinkClass::nic:
            return m_params.nic_link;
        case LinkClass::uplink:
            return m_params.uplink;
    }
    return m_params.die_link;
}

std::string Topology::vertex_name(uint32_t v) const {
    if (v < m_params.dies) return fmt::format("die{}", v);
    if (m_params.has_fallback && v >= m_host_base && v < m_host_base + m_params.nodes())
        return fmt::format("host.n{}", v - m_host_base);
    if (m_params.has_fallback && v >= m_host_tx_base && v < m_host_tx_base + m_params.nodes())
        return fmt::format("host.n{}.tx", v - m_host_tx_base);
    std::string name = m_node->vertex_name(v);
    if (name.empty() && m_scale_out) name = m_scale_out->vertex_name(v);
    return name.empty() ? fmt::format("v{}", v) : name;
}

std::string Topology::link_name(uint32_t link) const {
    return vertex_name(m_links[link].from) + "->" + vertex_name(m_links[link].to);
}

bool Topology::is_endpoint(uint32_t v) const {
    return v < m_params.dies ||
           (m_params.has_fallback && v >= m_host_base && v < m_host_tx_base + m_params.nodes());
}

int64_t Topology::link_between(uint32_t from, uint32_t to) const {
    if (from >= m_out.size()) return -1;
    const auto& out = m_out[from];
    auto it = std::lower_bound(out.begin(), out.end(), std::make_pair(to, 0u));
    if (it == out.end() || it->first != to) return -1;
    return it->second;
}

int64_t Topology::find_link(const std::string& name) const {
    const auto arrow = name.find("->");
    if (arrow == std::string::npos) return -1;
    const std::string a = name.substr(0, arrow), b = name.substr(arrow + 2);
    // Names are regular; scanning the vertices keeps the parser in one place (vertex_name).
    int64_t va = -1, vb = -1;
    for (uint32_t v = 0; v < vertices() && (va < 0 || vb < 0); ++v) {
        const std::string n = vertex_name(v);
        if (n == a) va = v;
        if (n == b) vb = v;
    }
    if (va < 0 || vb < 0) return -1;
    return link_between(static_cast<uint32_t>(va), static_cast<uint32_t>(vb));
}

Path Topology::to_links(const std::vector<uint32_t>& vertices_on_path) const {
    Path p;
    for (std::size_t i = 0; i + 1 < vertices_on_path.size(); ++i) {
        const int64_t l = link_between(vertices_on_path[i], vertices_on_path[i + 1]);
        if (l < 0) return {};
        p.push_back(static_cast<uint32_t>(l));
    }
    return p;
}

std::vector<VertexPath> Topology::structured_routes(uint32_t src, uint32_t dst,
                                                    std::size_t max_paths) const {
    std::vector<VertexPath> out;
    if (node_of(src) == node_of(dst)) {
        if (!m_node->route(src, dst, max_paths, out)) out.clear();
    } else if (m_scale_out) {
        m_scale_out->route(src, dst, max_paths, out);
    }
    return out;
}

std::vector<Path> Topology::routes(uint32_t src, uint32_t dst, std::size_t max_paths,
                                   const std::vector<char>& down) const {
    std::vector<Path> result;
    if (src == dst) return result;
    if (src >= m_params.dies || dst >= m_params.dies) {  // a host: over the fallback star
        Path p = search_path(src, dst, down);
        if (!p.empty()) result.push_back(std::move(p));
        return result;
    }
    auto live = [&](const Path& p) {
        if (p.empty()) return false;
        if (down.empty()) return true;
        for (uint32_t l : p)
            if (down[l]) return false;
        return true;
    };
    for (const auto& v : structured_routes(src, dst, std::max<std::size_t>(max_paths, 1))) {
        Path p = to_links(v);
        if (live(p)) result.push_back(std::move(p));
    }
    if (result.empty()) {
        Path p = search_path(src, dst, down);
        if (!p.empty()) result.push_back(std::move(p));
    }
    return result;
}

Path Topology::search_path(uint32_t src, uint32_t dst, const std::vector<char>& down) const {
    for (const bool allow_standby : {false, true}) {
        if (allow_standby && !m_params.has_fallback) break;
        std::vector<uint32_t> via(m_out.size(), kUnreached);
        std::deque<uint32_t> queue{src};
        via[src] = kUnreached - 1;
        while (!queue.empty() && via[dst] == kUnreached) {
            const uint32_t v = queue.front();
            queue.pop_front();
            for (const auto& [to, link] : m_out[v]) {
                if (via[to] != kUnreached || (!down.empty() && down[link])) continue;
                if (!allow_standby && is_standby(m_links[link].cls)) continue;
                via[to] = link;
                queue.push_back(to);
            }
        }
        if (via[dst] == kUnreached) continue;
        Path p;
        for (uint32_t v = dst; v != src; v = m_links[via[v]].from) p.push_back(via[v]);
        std::reverse(p.begin(), p.end());
        return p;
    }
    return {};
}

int64_t Topology::path_latency_ps(const Path& p, uint64_t first_packet, LinkOp op) const {
    int64_t t = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
        const LinkParams& l = link_params(p[i]);
        t += l.propagation_ps + l.switch_latency_ps;
        if (i + 1 < p.size()) t += l.packet_time_ps(std::min(first_packet, l.mtu_bytes), op);
    }
    return t;
}

namespace {
std::vector<uint32_t> hop_counts(const std::vector<std::vector<std::pair<uint32_t, uint32_t>>>& out,
                                 const std::vector<TopoLink>& links, uint32_t src) {
    std::vector<uint32_t> hops(out.size(), kUnreached);
    std::deque<uint32_t> queue{src};
    hops[src] = 0;
    while (!queue.empty()) {
        const uint32_t v = queue.front();
        queue.pop_front();
        for (const auto& [to, link] : out[v]) {
            if (hops[to] != kUnreached || is_standby(links[link].cls)) continue;
            hops[to] = hops[v] + 1;
            queue.push_back(to);
        }
    }
    return hops;
}
}  // namespace

uint32_t Topology::farthest_die_in_node(uint32_t die) const {
    const std::vector<uint32_t> hops = hop_counts(m_out, m_links, die);
    uint32_t best = die;
    const uint32_t base = node_of(die) * m_params.dies_per_node;
    for (uint32_t d = base; d < base + m_params.dies_per_node; ++d)
        if (d != die && hops[d] != kUnreached && (best == die || hops[d] > hops[best])) best = d;
    return best;
}

uint32_t Topology::farthest_die_outside_node(uint32_t die) const {
    const std::vector<uint32_t> hops = hop_counts(m_out, m_links, die);
    uint32_t best = die;
    for (uint32_t d = 0; d < m_params.dies; ++d)
        if (node_of(d) != node_of(die) && hops[d] != kUnreached &&
            (best == die || hops[d] > hops[best]))
            best = d;
    return best;
}

void Topology::check_connected() const {
    // Strongly connected over the primary links: every die reaches die 0 and die 0 reaches every
    // die.
    const std::vector<uint32_t> forward = hop_counts(m_out, m_links, 0);
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> in(m_out.size());
    for (uint32_t l = 0; l < m_links.size(); ++l)
        in[m_links[l].to].emplace_back(m_links[l].from, l);
    const std::vector<uint32_t> backward = hop_counts(in, m_links, 0);
    for (uint32_t d = 0; d < m_params.dies; ++d) {
        if (forward[d] == kUnreached || backward[d] == kUnreached) {
            throw InputError(
                fmt::format("network.node.{}: the topology does not connect die0 and die{}",
                            m_node->connectivity_key(), d));
        }
    }
}

}  // namespace asim
