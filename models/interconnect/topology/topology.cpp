#include "models/interconnect/topology/topology.h"

#include <algorithm>
#include <deque>
#include <limits>

#include <fmt/format.h>

#include "models/common/errors.h"

namespace asim {

namespace {
constexpr uint32_t kUnreached = std::numeric_limits<uint32_t>::max();

// Mixes a (src, dst) pair into a starting offset, so different pairs favour different
// equal-cost choices (ECMP hashing) deterministically.
uint32_t pair_hash(uint32_t a, uint32_t b) {
    uint64_t z = (static_cast<uint64_t>(a) << 32) ^ b ^ 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return static_cast<uint32_t>(z ^ (z >> 31));
}
}  // namespace

const char* to_string(NodeTopology t) {
    switch (t) {
        case NodeTopology::ring:
            return "ring";
        case NodeTopology::full_mesh:
            return "full_mesh";
        case NodeTopology::mesh:
            return "mesh";
        case NodeTopology::torus:
            return "torus";
        case NodeTopology::switched:
            return "switch";
        case NodeTopology::custom:
            return "custom";
    }
    return "?";
}

const char* to_string(ScaleOutTopology t) {
    switch (t) {
        case ScaleOutTopology::none:
            return "none";
        case ScaleOutTopology::clos:
            return "clos";
        case ScaleOutTopology::fat_tree:
            return "fat_tree";
    }
    return "?";
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
    if (nodes() > 1 && scale_out == ScaleOutTopology::none)
        add("scale_out", fmt::format("{} nodes need a scale_out topology to join them", nodes()));
    if (node_topology == NodeTopology::mesh || node_topology == NodeTopology::torus) {
        uint64_t product = 1;
        for (uint32_t d : dims) product *= d;
        if (dims.empty() || product != dies_per_node)
            add("node.dims", fmt::format("the dimensions' product ({}) must equal node.dies ({})",
                                         product, dies_per_node));
    }
    if (node_topology == NodeTopology::switched && planes == 0) add("node.planes", "must be >= 1");
    if (has_fallback && !(host_copy_bytes_per_s > 0))
        add("node.fallback.host_copy", "the host's forwarding copy bandwidth must be > 0");
    if (node_topology == NodeTopology::custom) {
        for (const auto& e : edges)
            if (e.first >= dies_per_node || e.second >= dies_per_node || e.first == e.second)
                add("node.edges",
                    fmt::format("edge [{}, {}] names a die outside 0..{} of the node (or a loop)",
                                e.first, e.second, dies_per_node - 1));
    }
    if (scale_out == ScaleOutTopology::clos) {
        if (node_topology != NodeTopology::switched)
            add("scale_out.topology",
                "clos joins the nodes' L1 switch chips: node.topology must be switch");
        if (l2_per_plane == 0) add("scale_out.l2_per_plane", "must be >= 1");
    }
    if (scale_out == ScaleOutTopology::fat_tree) {
        if (dies_per_leaf == 0 || dies % dies_per_leaf != 0)
            add("scale_out.dies_per_leaf",
                fmt::format("{} dies do not fill whole leaves of {}", dies, dies_per_leaf));
        if (spines == 0) add("scale_out.spines", "must be >= 1");
    }
    return p;
}

Topology::Topology(TopologyParams params) : m_params(std::move(params)) {
    const std::string bad = m_params.problems();
    if (!bad.empty()) throw InputError("network." + bad.substr(0, bad.find('\n')));
    const TopologyParams& t = m_params;
    add_vertex_block(t.dies);
    const uint32_t m = t.dies_per_node;
    for (uint32_t n = 0; n < t.nodes(); ++n) {
        const uint32_t base = n * m;
        switch (t.node_topology) {
            case NodeTopology::ring:
                if (m < 2) break;
                for (uint32_t i = 0; i < m; ++i) {
                    if (m == 2 && i == 1) break;  // two dies: one cable, not two
                    if (t.bidirectional) {
                        add_duplex(base + i, base + (i + 1) % m, LinkClass::die);
                    } else {
                        add_link(base + i, base + (i + 1) % m, LinkClass::die);
                    }
                }
                if (m == 2 && !t.bidirectional) add_link(base + 1, base, LinkClass::die);
                break;
            case NodeTopology::full_mesh:
                for (uint32_t i = 0; i < m; ++i)
                    for (uint32_t j = i + 1; j < m; ++j)
                        add_duplex(base + i, base + j, LinkClass::die);
                break;
            case NodeTopology::mesh:
            case NodeTopology::torus: {
                uint32_t stride = 1;
                for (uint32_t d : t.dims) {
                    for (uint32_t i = 0; i < m; ++i) {
                        const uint32_t c = (i / stride) % d;
                        if (c + 1 < d) {
                            add_duplex(base + i, base + i + stride, LinkClass::die);
                        } else if (t.node_topology == NodeTopology::torus && d > 2) {
                            add_duplex(base + i, base + i - c * stride, LinkClass::die);
                        }
                    }
                    stride *= d;
                }
                break;
            }
            case NodeTopology::switched:
                break;  // after the L1 chips exist
            case NodeTopology::custom:
                for (const auto& e : t.edges)
                    add_duplex(base + e.first, base + e.second, LinkClass::die);
                break;
        }
    }
    std::vector<uint32_t> up, down;
    if (t.node_topology == NodeTopology::switched) {
        m_l1_base = add_vertex_block(t.nodes() * t.planes);
        for (uint32_t d = 0; d < t.dies; ++d) {
            up.clear();
            down.clear();
            for (uint32_t p = 0; p < t.planes; ++p) {
                up.push_back(add_duplex(d, l1(node_of(d), p), LinkClass::die));
                down.push_back(up.back() + 1);
            }
            add_bundle(up);
            add_bundle(down);
        }
    }
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
    if (t.scale_out == ScaleOutTopology::clos) {
        m_l2_base = add_vertex_block(t.planes * t.l2_per_plane);
        for (uint32_t n = 0; n < t.nodes(); ++n) {
            const uint32_t first = static_cast<uint32_t>(m_links.size());
            for (uint32_t p = 0; p < t.planes; ++p)
                for (uint32_t k = 0; k < t.l2_per_plane; ++k)
                    add_duplex(l1(n, p), l2(p, k), LinkClass::uplink);
            // Node n's uplinks to L2 chip k of every plane, and those chips' links back.
            for (uint32_t k = 0; k < t.l2_per_plane; ++k) {
                up.clear();
                down.clear();
                for (uint32_t p = 0; p < t.planes; ++p) {
                    up.push_back(first + 2 * (p * t.l2_per_plane + k));
                    down.push_back(up.back() + 1);
                }
                add_bundle(up);
                add_bundle(down);
            }
        }
    } else if (t.scale_out == ScaleOutTopology::fat_tree) {
        const uint32_t leaves = t.dies / t.dies_per_leaf;
        m_leaf_base = add_vertex_block(leaves);
        m_spine_base = add_vertex_block(t.spines);
        for (uint32_t d = 0; d < t.dies; ++d) add_duplex(d, leaf_of(d), LinkClass::nic);
        for (uint32_t l = 0; l < leaves; ++l) {
            up.clear();
            down.clear();
            for (uint32_t s = 0; s < t.spines; ++s) {
                up.push_back(add_duplex(m_leaf_base + l, m_spine_base + s, LinkClass::uplink));
                down.push_back(up.back() + 1);
            }
            add_bundle(up);
            add_bundle(down);
        }
    }
    for (auto& out : m_out) std::sort(out.begin(), out.end());
    check_connected();
}

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
    const TopologyParams& t = m_params;
    if (v < t.dies) return fmt::format("die{}", v);
    if (t.node_topology == NodeTopology::switched && v >= m_l1_base &&
        v < m_l1_base + t.nodes() * t.planes)
        return fmt::format("l1.n{}.p{}", (v - m_l1_base) / t.planes, (v - m_l1_base) % t.planes);
    if (t.has_fallback && v >= m_host_base && v < m_host_base + t.nodes())
        return fmt::format("host.n{}", v - m_host_base);
    if (t.has_fallback && v >= m_host_tx_base && v < m_host_tx_base + t.nodes())
        return fmt::format("host.n{}.tx", v - m_host_tx_base);
    if (t.scale_out == ScaleOutTopology::clos && v >= m_l2_base)
        return fmt::format("l2.p{}.{}", (v - m_l2_base) / t.l2_per_plane,
                           (v - m_l2_base) % t.l2_per_plane);
    if (t.scale_out == ScaleOutTopology::fat_tree) {
        if (v >= m_spine_base) return fmt::format("spine{}", v - m_spine_base);
        if (v >= m_leaf_base) return fmt::format("leaf{}", v - m_leaf_base);
    }
    return fmt::format("v{}", v);
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

bool Topology::structured_node_route(uint32_t src, uint32_t dst,
                                     std::vector<std::vector<uint32_t>>& out,
                                     std::size_t max_paths) const {
    const TopologyParams& t = m_params;
    const uint32_t m = t.dies_per_node, base = node_of(src) * m, a = src - base, b = dst - base;
    switch (t.node_topology) {
        case NodeTopology::ring: {
            const uint32_t cw = (b + m - a) % m, ccw = (a + m - b) % m;
            auto walk = [&](int dir, uint32_t steps) {
                std::vector<uint32_t> v{src};
                for (uint32_t s = 1; s <= steps; ++s)
                    v.push_back(base + (a + m + static_cast<uint32_t>(dir) * s) % m);
                out.push_back(std::move(v));
            };
            if (!t.bidirectional || cw < ccw) {
                walk(1, cw);
            } else if (ccw < cw) {
                walk(-1, ccw);
            } else {
                walk(1, cw);
                if (max_paths > 1) walk(-1, ccw);
            }
            return true;
        }
        case NodeTopology::full_mesh:
            out.push_back({src, dst});
            return true;
        case NodeTopology::mesh:
        case NodeTopology::torus: {
            std::vector<uint32_t> v{src};
            uint32_t cur = a, stride = 1;
            for (uint32_t d : t.dims) {
                const uint32_t from = (cur / stride) % d, to = (b / stride) % d;
                int dir = to > from ? 1 : -1;
                uint32_t steps = to > from ? to - from : from - to;
                if (t.node_topology == NodeTopology::torus && d > 2 && steps * 2 > d) {
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
        case NodeTopology::switched: {
            const uint32_t h = pair_hash(src, dst);
            for (uint32_t i = 0; i < t.planes && out.size() < max_paths; ++i)
                out.push_back({src, l1(node_of(src), (h + i) % t.planes), dst});
            return true;
        }
        case NodeTopology::custom:
            return false;
    }
    return false;
}

std::vector<std::vector<uint32_t>> Topology::structured_routes(uint32_t src, uint32_t dst,
                                                               std::size_t max_paths) const {
    std::vector<std::vector<uint32_t>> out;
    const TopologyParams& t = m_params;
    if (node_of(src) == node_of(dst)) {
        if (!structured_node_route(src, dst, out, max_paths)) out.clear();
        return out;
    }
    const uint32_t h = pair_hash(src, dst);
    if (t.scale_out == ScaleOutTopology::clos) {
        // Planes first (hashed start), then L2 chips from the source die's index in its node
        // (source-mod-k): the dies of one node leave through different L2 chips, so a node's
        // traffic to another node spreads over the plane's uplinks instead of colliding.
        const uint32_t total = t.planes * t.l2_per_plane, local = src % t.dies_per_node;
        for (uint32_t i = 0; i < total && out.size() < max_paths; ++i) {
            const uint32_t p = (h + i) % t.planes, k = (local + i / t.planes) % t.l2_per_plane;
            out.push_back({src, l1(node_of(src), p), l2(p, k), l1(node_of(dst), p), dst});
        }
    } else if (t.scale_out == ScaleOutTopology::fat_tree) {
        const uint32_t ls = leaf_of(src), ld = leaf_of(dst);
        if (ls == ld) {
            out.push_back({src, ls, dst});
        } else {
            for (uint32_t i = 0; i < t.spines && out.size() < max_paths; ++i)
                out.push_back({src, ls, m_spine_base + (h + i) % t.spines, ld, dst});
        }
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
            const char* key = m_params.node_topology == NodeTopology::custom
                                  ? "network.node.edges"
                                  : "network.node.topology";
            throw InputError(
                fmt::format("{}: the topology does not connect die0 and die{}", key, d));
        }
    }
}

}  // namespace asim
