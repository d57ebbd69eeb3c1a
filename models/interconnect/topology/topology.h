// The supernode's graph: dies, switch chips and (optionally) a host per node, joined by directed
// links, built from TopologyParams. Two levels, each a part chosen by name from a registry:
//   node topology (scale-up domain, node_topology_registry()) - ring.cpp, full_mesh.cpp,
//     grid.cpp (n-D mesh and torus), switch.cpp (one first-level switch chip per plane, every
//     die has a port on each plane), custom.cpp (an edge list);
//   scale-out between nodes (scale_out_registry()) - clos.cpp: per plane, every node's L1 chip
//     links to each of the plane's L2 chips (multi-plane two-tier Clos, CloudMatrix384);
//     fat_tree.cpp: each die has a NIC port to a leaf switch, leaves link to every spine
//     (two-tier RoCE / UBoE fat-tree).
// A part declares its own YAML keys, checks them, adds its vertices and links through a
// GraphBuilder, names its vertices and answers its structured routes. Adding one is a file that
// registers itself (ASIM_REGISTER) plus one line in models/interconnect/CMakeLists.txt
// (topology/README.md).
//
// An optional `fallback` star (die <-> host of its node) is a standby path: routes use it only
// when no path without it exists (a broken ring falling back to a star). A host is two vertices:
// `host.nK` receives from the dies, `host.nK.tx` sends to them, and the link between them is the
// host's memory copy (every byte the host forwards crosses it, in either direction, so forwarded
// traffic shares the host's copy bandwidth).
//
// Routing is shortest path. The regular topologies route structurally (dimension order on
// meshes, shorter direction on rings, every plane and every L2 / spine chip as equal-cost
// choices on Clos and fat-tree), which needs no per-pair tables at 15,488 dies; when links are
// down, or on a part without structured routes (`custom`), a breadth-first search over the live
// links finds the path.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/common/params.h"
#include "models/common/registry.h"
#include "models/interconnect/link/link_params.h"

namespace asim {

struct TopologyParams {
    uint32_t dies = 8;
    uint32_t dies_per_node = 8;
    // The node topology: a name of node_topology_registry() and its own keys (network.node.*);
    // a key left out takes its declared default.
    std::string node_topology = "ring";
    ParamValues node_params;
    LinkParams die_link;  // die-die or die-L1 links
    bool has_fallback = false;
    LinkParams fallback_link;          // die <-> host star (standby)
    double host_copy_bytes_per_s = 0;  // the host's forwarding copy (fallback)

    // The scale-out between nodes: a name of scale_out_registry() ("" for none: one node) and its
    // own keys (network.scale_out.*).
    std::string scale_out;
    ParamValues scale_out_params;
    LinkParams nic_link;  // die <-> first scale-out switch, for a scale-out with NICs (fat_tree)
    LinkParams uplink;    // between scale-out switch levels (L1 <-> L2, leaf <-> spine)

    uint32_t nodes() const { return dies_per_node ? dies / dies_per_node : 0; }
    // Every problem as "key: what" lines ("" when valid). Keys are relative to `network.`.
    std::string problems() const;
};

// The classes of links; each takes its parameters from one key of the `network:` section
// (node.link, node.fallback, the host's copy, scale_out.nic, scale_out.uplink), whichever part
// adds the link.
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

using Path = std::vector<uint32_t>;        // link ids, from source to destination
using VertexPath = std::vector<uint32_t>;  // vertex ids, from source to destination
using Problems = std::vector<std::pair<std::string, std::string>>;  // (key, what)

// Mixes a (src, dst) pair into a starting offset, so different pairs favour different
// equal-cost choices (ECMP hashing) deterministically.
uint32_t ecmp_hash(uint32_t src, uint32_t dst);

class Topology;

// What a part may do to the graph while it is built: vertex blocks, links and bundles of
// parallel links (the flow network aggregates a bundle used evenly: network/README.md).
class GraphBuilder {
public:
    // A block of `n` new vertices; returns the first id.
    uint32_t add_vertices(uint32_t n);
    uint32_t add_link(uint32_t a, uint32_t b, LinkClass cls);  // returns the link id
    // a -> b; b -> a is the next id.
    uint32_t add_duplex(uint32_t a, uint32_t b, LinkClass cls);
    void add_bundle(const std::vector<uint32_t>& links);
    uint32_t link_count() const;  // links so far: the id the next one gets

private:
    friend class Topology;
    explicit GraphBuilder(Topology& topology) : m_topology(topology) {}
    Topology& m_topology;
};

// One node topology (network.node.topology). Built from its parameters and the TopologyParams
// (dies, dies_per_node); the constructor only keeps them, problems() checks them.
class NodeTopology {
public:
    virtual ~NodeTopology() = default;
    // Problems of this shape: (key under `network.node`, what).
    virtual Problems problems() const { return {}; }
    // Adds the vertices and links of every node: dies 0..dies-1 exist, die d lies in node
    // d / dies_per_node.
    virtual void build(GraphBuilder& graph) = 0;
    // Equal-cost shortest vertex paths between two dies of one node, at most `max_paths`, into
    // `out`; false when the part has none (the graph is searched).
    virtual bool route(uint32_t src, uint32_t dst, std::size_t max_paths,
                       std::vector<VertexPath>& out) const = 0;
    // The name of one of its own vertices, or "" for another's.
    virtual std::string vertex_name(uint32_t v) const;
    // For `info`: "ring (unidirectional)", "torus 2x4", "switch, 7 planes".
    virtual std::string summary() const = 0;
    // The key a graph that does not connect is blamed on (under `network.node`).
    virtual std::string connectivity_key() const { return "topology"; }
    // First-level switch chips a scale-out can join (switch: one per plane and node); 0 for a
    // node topology without them.
    virtual uint32_t switch_planes() const { return 0; }
    virtual uint32_t switch_chip(uint32_t node, uint32_t plane) const;
};

// One scale-out topology (network.scale_out.topology), joining the nodes.
class ScaleOutTopology {
public:
    virtual ~ScaleOutTopology() = default;
    // Problems of this scale-out over `node`: (key under `network`, what).
    virtual Problems problems(const NodeTopology& node) const;
    // Whether each die has a port of its own into the scale-out (`scale_out.nic`); the uplink's
    // keys default to the NIC's then, else to the die link's.
    virtual bool has_nic() const { return false; }
    // Adds its switches and links, after the node topology's and the fallback star's.
    virtual void build(GraphBuilder& graph, const NodeTopology& node) = 0;
    // Equal-cost vertex paths between dies of different nodes, at most `max_paths`, into `out`.
    virtual void route(uint32_t src, uint32_t dst, std::size_t max_paths,
                       std::vector<VertexPath>& out) const = 0;
    virtual std::string vertex_name(uint32_t v) const;
    // For `info`: "clos, 16 L2 switches per plane".
    virtual std::string summary() const = 0;
};

// The registries: the factories get the implementation's parameter values (defaults filled in)
// and the whole TopologyParams.
using NodeTopologyRegistry = Registry<NodeTopology, const TopologyParams&>;
using ScaleOutRegistry = Registry<ScaleOutTopology, const TopologyParams&>;
NodeTopologyRegistry& node_topology_registry();
ScaleOutRegistry& scale_out_registry();

// The parts `params` names, unbuilt (for problems and summaries). Throw InputError for a name
// that is not registered.
std::unique_ptr<NodeTopology> make_node_topology(const TopologyParams& params);
std::unique_ptr<ScaleOutTopology> make_scale_out(const TopologyParams& params);

class Topology {
public:
    // Throws InputError when the parameters are invalid or the live graph does not connect.
    explicit Topology(TopologyParams params);
    ~Topology();
    Topology(const Topology&) = delete;
    Topology& operator=(const Topology&) = delete;

    const TopologyParams& params() const { return m_params; }
    const NodeTopology& node_topology() const { return *m_node; }
    // nullptr with a single node.
    const ScaleOutTopology* scale_out() const { return m_scale_out.get(); }
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
    friend class GraphBuilder;
    uint32_t add_vertex_block(uint32_t n);
    uint32_t add_link(uint32_t a, uint32_t b, LinkClass cls);    // returns the link id
    uint32_t add_duplex(uint32_t a, uint32_t b, LinkClass cls);  // a -> b; b -> a is the next id
    void add_bundle(const std::vector<uint32_t>& links);
    std::vector<VertexPath> structured_routes(uint32_t src, uint32_t dst,
                                              std::size_t max_paths) const;
    Path to_links(const std::vector<uint32_t>& vertices) const;
    void check_connected() const;

    TopologyParams m_params;
    std::unique_ptr<NodeTopology> m_node;
    std::unique_ptr<ScaleOutTopology> m_scale_out;
    LinkParams m_host_copy_link;  // derived from host_copy_bytes_per_s
    std::vector<TopoLink> m_links;
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>>
        m_out;  // per vertex: (to, link), sorted by to
    uint32_t m_host_base = 0, m_host_tx_base = 0;
    uint32_t m_vertex_count = 0;
    std::vector<uint32_t> m_bundle_of;        // per link
    std::vector<uint32_t> m_bundle_start{0};  // per bundle, into m_bundle_links
    std::vector<uint32_t> m_bundle_links;
};

}  // namespace asim
