// The supernode's graph: dies, switch chips and (optionally) a host per node, joined by directed
// links, built from TopologyParams. Two levels:
//   node (scale-up domain) - ring (uni- or bidirectional), full mesh, n-D mesh, n-D torus,
//     `switch` (one first-level switch chip per plane, every die has a port on each plane) or
//     `custom` (an edge list);
//   scale-out between nodes - `clos`: per plane, every node's L1 chip links to each of the plane's
//     L2 chips (multi-plane two-tier Clos, CloudMatrix384); `fat_tree`: each die has a NIC port to
//     a leaf switch, leaves link to every spine (two-tier RoCE / UBoE fat-tree).
// An optional `fallback` star (die <-> host of its node) is a standby path: routes use it only
// when no path without it exists (a broken ring falling back to a star). A host is two vertices:
// `host.nK` receives from the dies, `host.nK.tx` sends to them, and the link between them is the
// host's memory copy (every byte the host forwards crosses it, in either direction, so forwarded
// traffic shares the host's copy bandwidth).
//
// Routing is shortest path. The regular topologies route structurally (dimension order on
// meshes, shorter direction on rings, every plane and every L2 / spine chip as equal-cost
// choices on Clos and fat-tree), which needs no per-pair tables at 15,488 dies; when links are
// down, or on `custom`, a breadth-first search over the live links finds the path.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/interconnect/link/link_params.h"

namespace asim {

enum class NodeTopology { ring, full_mesh, mesh, torus, switched, custom };
enum class ScaleOutTopology { none, clos, fat_tree };
const char* to_string(NodeTopology t);
const char* to_string(ScaleOutTopology t);

struct TopologyParams {
    uint32_t dies = 8;
    uint32_t dies_per_node = 8;
    NodeTopology node_topology = NodeTopology::ring;
    bool bidirectional = true;                         // ring
    std::vector<uint32_t> dims;                        // mesh, torus: product = dies_per_node
    uint32_t planes = 1;                               // switched: L1 chips per node
    std::vector<std::pair<uint32_t, uint32_t>> edges;  // custom: undirected local die pairs
    LinkParams die_link;                               // die-die or die-L1 links
    bool has_fallback = false;
    LinkParams fallback_link;          // die <-> host star (standby)
    double host_copy_bytes_per_s = 0;  // the host's forwarding copy (fallback)

    ScaleOutTopology scale_out = ScaleOutTopology::none;
    uint32_t l2_per_plane = 1;   // clos
    uint32_t dies_per_leaf = 1;  // fat_tree
    uint32_t spines = 1;         // fat_tree
    LinkParams nic_link;         // fat_tree die <-> leaf
    LinkParams uplink;           // L1 <-> L2, leaf <-> spine

    uint32_t nodes() const { return dies_per_node ? dies / dies_per_node : 0; }
    // Every problem as "key: what" lines ("" when valid). Keys are relative to `network.`.
    std::string problems() const;
};

enum class LinkClass : uint8_t { die, fallback, host_copy, nic, uplink };
// Standby links (the fallback star and the host's copy) carry traffic only when no other path is
// left.
inline bool is_standby(LinkClass c) {
    return c == LinkClass::fallback || c == LinkClass::host_copy;
}

struct TopoLink {
    uint32_t from;
    uint32_t to;
    LinkClass cls;
};

using Path = std::vector<uint32_t>;  // link ids, from source to destination

class Topology {
public:
    // Throws InputError when the parameters are invalid or the live graph does not connect.
    explicit Topology(TopologyParams params);

    const TopologyParams& params() const { return m_params; }
    uint32_t dies() const { return m_params.dies; }
    uint32_t vertices() const { return static_cast<uint32_t>(m_out.size()); }
    uint32_t node_of(uint32_t die) const { return die / m_params.dies_per_node; }
    // The fallback star's host of node `node`: where dies' transfers to it arrive, and where its
    // transfers to dies leave (has_fallback only). Both are transfer endpoints besides the dies.
    uint32_t host_rx(uint32_t node) const { return m_host_base + node; }
    uint32_t host_tx(uint32_t node) const { return m_host_tx_base + node; }
    // A die or (with the fallback star) a host vertex.
    bool is_endpoint(uint32_t v) const;
    const std::vector<TopoLink>& links() const { return m_links; }
    const LinkParams& link_params(uint32_t link) const;
    std::string vertex_name(uint32_t v) const;
    std::string link_name(uint32_t link) const;  // "die3->die4"
    // The link named "A->B", or -1.
    int64_t find_link(const std::string& name) const;
    // The link from `from` to `to`, or -1.
    int64_t link_between(uint32_t from, uint32_t to) const;

    // Equal-cost shortest paths from die `src` to die `dst` avoiding links with down[link] != 0
    // (down may be empty), at most `max_paths`, spread over planes first. Empty when none exists.
    std::vector<Path> routes(uint32_t src, uint32_t dst, std::size_t max_paths,
                             const std::vector<char>& down) const;
    // Breadth-first shortest path over live links (standby fallback links only when needed).
    Path search_path(uint32_t src, uint32_t dst, const std::vector<char>& down) const;

    // One-way latency of a path for a message whose first packet carries `first_packet` bytes:
    // propagation and switching of every link, plus store-and-forward of that packet on all but
    // the last link.
    int64_t path_latency_ps(const Path& p, uint64_t first_packet, LinkOp op) const;
    // Bundles of parallel links (see the file comment): ids 0..bundles()-1.
    static constexpr uint32_t kNoBundle = 0xFFFFFFFFu;
    uint32_t bundles() const { return static_cast<uint32_t>(m_bundle_start.size()) - 1; }
    uint32_t bundle_of(uint32_t link) const { return m_bundle_of[link]; }  // kNoBundle when none
    // The links of bundle `b`: [begin, end) of one array.
    const uint32_t* bundle_begin(uint32_t b) const {
        return m_bundle_links.data() + m_bundle_start[b];
    }
    const uint32_t* bundle_end(uint32_t b) const {
        return m_bundle_links.data() + m_bundle_start[b + 1];
    }

    // Hop-count diameter between dies 0 and `dst` (used to pick the farthest peer for figures).
    uint32_t farthest_die_in_node(uint32_t die) const;
    uint32_t farthest_die_outside_node(uint32_t die) const;

private:
    uint32_t add_vertex_block(uint32_t n);
    uint32_t add_link(uint32_t a, uint32_t b, LinkClass cls);    // returns the link id
    uint32_t add_duplex(uint32_t a, uint32_t b, LinkClass cls);  // a -> b; b -> a is the next id
    void add_bundle(const std::vector<uint32_t>& links);
    uint32_t l1(uint32_t node, uint32_t plane) const {
        return m_l1_base + node * m_params.planes + plane;
    }
    uint32_t l2(uint32_t plane, uint32_t k) const {
        return m_l2_base + plane * m_params.l2_per_plane + k;
    }
    uint32_t leaf_of(uint32_t die) const { return m_leaf_base + die / m_params.dies_per_leaf; }
    bool structured_node_route(uint32_t src, uint32_t dst,
                               std::vector<std::vector<uint32_t>>& vertex_paths,
                               std::size_t max_paths) const;
    std::vector<std::vector<uint32_t>> structured_routes(uint32_t src, uint32_t dst,
                                                         std::size_t max_paths) const;
    Path to_links(const std::vector<uint32_t>& vertices) const;
    void check_connected() const;

    TopologyParams m_params;
    LinkParams m_host_copy_link;  // derived from host_copy_bytes_per_s
    std::vector<TopoLink> m_links;
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>>
        m_out;  // per vertex: (to, link), sorted by to
    uint32_t m_l1_base = 0, m_host_base = 0, m_host_tx_base = 0, m_l2_base = 0, m_leaf_base = 0,
             m_spine_base = 0;
    uint32_t m_vertex_count = 0;
    std::vector<uint32_t> m_bundle_of;        // per link
    std::vector<uint32_t> m_bundle_start{0};  // per bundle, into m_bundle_links
    std::vector<uint32_t> m_bundle_links;
};

}  // namespace asim
