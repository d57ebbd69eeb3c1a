// YAML for `network:` (see models/interconnect/README.md for the keys).
#include <fmt/format.h>

#include "models/common/config.h"
#include "models/common/errors.h"
#include "models/interconnect/network_params.h"

namespace asim {

namespace {

// Raises the first "key.path: what" problem at its key under `root`.
[[noreturn]] void fail_at(const ConfigNode& root, const std::string& problems) {
    const std::string line = problems.substr(0, problems.find('\n'));
    const auto colon = line.find(": ");
    std::string key = line.substr(0, colon);
    const std::string what = line.substr(colon + 2);
    ConfigNode at = root;
    for (auto dot = key.find('.'); dot != std::string::npos; dot = key.find('.')) {
        const auto sub = at.optional_child(key.substr(0, dot));
        if (!sub) break;
        at = *sub;
        key = key.substr(dot + 1);
    }
    at.fail(key, what);
}

}  // namespace

NetworkParams parse_network_params(const ConfigNode& n) {
    NetworkParams p;
    TopologyParams& t = p.topology;
    t.dies = static_cast<uint32_t>(n.integer("dies", {1, 1 << 24}));
    p.max_paths = static_cast<std::size_t>(n.integer("max_paths", 8, {1, 4096}));

    const ConfigNode node = n.child("node");
    t.dies_per_node = static_cast<uint32_t>(node.integer("dies", {1, 1 << 24}));
    const std::string kind =
        node.choice("topology", {"ring", "full_mesh", "mesh", "torus", "switch", "custom"});
    t.node_topology = kind == "ring"        ? NodeTopology::ring
                      : kind == "full_mesh" ? NodeTopology::full_mesh
                      : kind == "mesh"      ? NodeTopology::mesh
                      : kind == "torus"     ? NodeTopology::torus
                      : kind == "switch"    ? NodeTopology::switched
                                            : NodeTopology::custom;
    if (t.node_topology == NodeTopology::ring)
        t.bidirectional = node.boolean("bidirectional", true);
    if (t.node_topology == NodeTopology::mesh || t.node_topology == NodeTopology::torus)
        for (int64_t d : node.integer_list("dims", {1, 1 << 20}))
            t.dims.push_back(static_cast<uint32_t>(d));
    if (t.node_topology == NodeTopology::switched)
        t.planes = static_cast<uint32_t>(node.integer("planes", {1, 1024}));
    if (t.node_topology == NodeTopology::custom) {
        const auto flat = node.integer_list("edges", {0, 1 << 24});
        if (flat.size() % 2 != 0)
            node.fail("edges", "a list of die pairs [a0, b0, a1, b1, ...]: odd length");
        for (std::size_t i = 0; i < flat.size(); i += 2)
            t.edges.emplace_back(static_cast<uint32_t>(flat[i]),
                                 static_cast<uint32_t>(flat[i + 1]));
    }
    t.die_link = parse_link_params(node.child("link"), LinkParams{});
    if (const auto fb = node.optional_child("fallback")) {
        t.has_fallback = true;
        t.fallback_link = parse_link_params(*fb, LinkParams{});
        t.host_copy_bytes_per_s = fb->byte_rate("host_copy");
    }

    if (const auto so = n.optional_child("scale_out")) {
        const std::string out = so->choice("topology", {"clos", "fat_tree"});
        if (out == "clos") {
            t.scale_out = ScaleOutTopology::clos;
            t.l2_per_plane = static_cast<uint32_t>(so->integer("l2_per_plane", {1, 1 << 16}));
        } else {
            t.scale_out = ScaleOutTopology::fat_tree;
            t.dies_per_leaf = static_cast<uint32_t>(so->integer("dies_per_leaf", {1, 1 << 20}));
            t.spines = static_cast<uint32_t>(so->integer("spines", {1, 1 << 16}));
            t.nic_link = parse_link_params(so->child("nic"), LinkParams{});
        }
        t.uplink = parse_link_params(
            so->child("uplink"), t.scale_out == ScaleOutTopology::clos ? t.die_link : t.nic_link);
    }
    const std::string bad = t.problems();
    if (!bad.empty()) fail_at(n, bad);

    if (const auto ep = n.optional_child("endpoint")) {
        p.endpoint.issue_overhead_ps = ep->time_ps("issue_overhead", 0);
        p.endpoint.memory_read_ps = ep->time_ps("memory_read", 0);
        p.endpoint.memory_write_ps = ep->time_ps("memory_write", 0);
    }
    // A collective's SDMA start-up per message is the DMA issue cost `figures links` uses, unless
    // network.collectives.sdma_start says otherwise.
    p.collectives.sdma_start_ps = p.endpoint.issue_overhead_ps;
    if (const auto co = n.optional_child("collectives")) {
        p.collectives.allreduce_algo = parse_collective_algo(co->choice(
            "allreduce_algorithm",
            {"ring", "ring_pipelined", "halving_doubling", "mesh", "double_ring", "hierarchical"},
            "ring"));
        p.collectives.chunk_bytes = co->size_bytes("chunk", p.collectives.chunk_bytes);
        p.collectives.reduce_bytes_per_s =
            co->has("reduce_bandwidth") ? co->byte_rate("reduce_bandwidth") : 0.0;
        p.collectives.launch_overhead_ps = co->time_ps("launch_overhead", 0);
        p.collectives.sdma_start_ps = co->time_ps("sdma_start", p.collectives.sdma_start_ps);
        p.collectives.aiv_start_ps = co->time_ps("aiv_start", 0);
        for (const std::string& name : co->string_list("aiv_direct", {})) {
            try {
                p.collectives.aiv_direct.push_back(parse_collective_op(name));
            } catch (const InputError& e) {
                co->fail("aiv_direct", e.what());
            }
        }
        p.collectives.notify_bytes = co->size_bytes_or_zero("notify_bytes", 0);
        p.collectives.notify_overhead_ps = co->time_ps("notify_overhead", 0);
        p.collectives.die_work = co->boolean("die_work", p.collectives.die_work);
        p.collectives.buffer_bytes = co->size_bytes("buffer", p.collectives.buffer_bytes);
        try {
            p.collectives.ring_break =
                parse_ring_break(co->string("ring_break", to_string(RingBreak::cost)));
        } catch (const ConfigError&) {
            throw;
        } catch (const InputError& e) {
            co->fail("ring_break", e.what());
        }
        const std::string cbad = p.collectives.problems();
        if (!cbad.empty()) fail_at(*co, cbad);
    }
    if (n.has("faults")) {
        const auto list = n.child_list("faults");
        for (const ConfigNode& f : list) {
            LinkFault lf;
            lf.link = f.string("link");
            lf.at_ps = f.time_ps("at", 0);
            lf.where = f.location().str() + ": " + f.key_path("link");
            p.faults.push_back(std::move(lf));
        }
    }
    return p;
}

std::vector<uint32_t> resolve_faults(const Topology& topology, const NetworkParams& params) {
    std::vector<uint32_t> ids;
    for (const LinkFault& f : params.faults) {
        const int64_t id = topology.find_link(f.link);
        if (id < 0)
            throw ConfigError(
                fmt::format("{}: no link '{}' in this topology (links are named like '{}')",
                            f.where, f.link, topology.link_name(0)));
        ids.push_back(static_cast<uint32_t>(id));
    }
    return ids;
}

}  // namespace asim
