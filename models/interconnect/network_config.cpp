// YAML for `network:` (see models/interconnect/README.md for the keys).
#include <fmt/format.h>

#include "models/common/config.h"
#include "models/common/errors.h"
#include "models/common/params.h"
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

// Whether `key` is written in `node` as `value` (a choice that was refused is not: its
// stand-in's parameters are not read).
bool written_as(const ConfigNode& node, const std::string& key, const std::string& value) {
    try {
        return node.has(key) && node.string(key) == value;
    } catch (const ConfigError&) {
        return false;
    }
}

}  // namespace

namespace {

// The algorithms an op accepts, by name (schedule.h's one list).
std::vector<std::string> algorithm_names(CollectiveOp op) {
    std::vector<std::string> names;
    for (CollectiveAlgo a : algorithms_for(op)) names.emplace_back(to_string(a));
    return names;
}

const ParamTable kNetwork({"network"}, "Network",
                          {Param::integer("dies", "", "dies in the system").range(1, 1 << 24),
                           Param::integer("max_paths", "",
                                          "equal-cost paths a transfer spreads over")
                               .dflt("8")
                               .range(1, 4096),
                           Param::implementation("routing", routing_registry(),
                                                 "how a transfer chooses among the equal-cost "
                                                 "shortest paths")
                               .dflt("minimal")});

const ParamTable kNode({"network.node"}, "Network: node",
                       {Param::integer("dies", "", "dies per node").range(1, 1 << 24),
                        Param::implementation("topology", node_topology_registry(),
                                              "how a node's dies connect")});

const ParamTable kFallback(
    {"network.node.fallback"}, "Network: ring-break fallback through the host",
    {Param::byte_rate("host_copy", "the host's forwarding copy (read and write of host DRAM)")});

const ParamTable kScaleOut({"network.scale_out"}, "Network: between nodes",
                           {Param::implementation("topology", scale_out_registry(),
                                                  "network between the nodes")});

const ParamTable kEndpoint(
    {"network.endpoint"}, "Network: endpoints",
    {Param::time("issue_overhead", "SDMA descriptor fetch and doorbell per transfer").dflt("0ns"),
     Param::time("memory_read", "remote memory read at the far end").dflt("0ns"),
     Param::time("memory_write", "remote write commit at the far end").dflt("0ns")});

const ParamTable kCollectives(
    {"network.collectives"}, "Network: collectives",
    {Param::choice_of(
         "allreduce_algorithm", [] { return algorithm_names(CollectiveOp::allreduce); },
         "all-reduce algorithm")
         .dflt("ring"),
     Param::size("chunk", "pipeline piece (ring_pipelined, broadcast)").dflt("4MiB"),
     Param::byte_rate("reduce_bandwidth", "vector-core reduction rate (absent: free)").optional(),
     Param::time("launch_overhead", "per collective, before the first send").dflt("0ns"),
     Param::time("sdma_start", "start-up per message moved by SDMA")
         .dflt_from("network.endpoint.issue_overhead"),
     Param::time("aiv_start", "start-up per message moved AIV-direct").dflt("0ns"),
     Param::string_list("aiv_direct",
                        "collectives whose data the vector cores write straight into remote memory")
         .optional(),
     Param::size("notify_bytes", "ready flag per receive (0B: none)").dflt("0B").zero_allowed(),
     Param::time("notify_overhead", "before each ready flag leaves").dflt("0ns"),
     Param::boolean("die_work",
                    "collectives read and write die memory and reduce on the vector cores")
         .dflt("true"),
     Param::size("buffer", "HCCL buffer: each of the in and out buffers at the top of HBM")
         .dflt("200MiB"),
     Param::string("ring_break",
                   "a ring hop over the host: forward, star or cost (the faster by alpha-beta)")
         .dflt("cost")});

const ParamTable kFault({"network.faults[]"}, "Network: link faults",
                        {Param::string("link", "the failed link, by name (e.g. die3->die4)"),
                         Param::time("at", "when it fails").dflt("0ns")});

}  // namespace

NetworkParams parse_network_params(const ConfigNode& n) {
    NetworkParams p;
    TopologyParams& t = p.topology;
    t.dies = static_cast<uint32_t>(kNetwork.integer(n, "dies"));
    p.max_paths = static_cast<std::size_t>(kNetwork.integer(n, "max_paths"));
    p.routing = kNetwork.string(n, "routing");
    if (routing_registry().contains(p.routing))
        p.routing_params = routing_registry().read_params(n, p.routing);

    const ConfigNode node = n.child("node");
    t.dies_per_node = static_cast<uint32_t>(kNode.integer(node, "dies"));
    t.node_topology = kNode.string(node, "topology");
    if (written_as(node, "topology", t.node_topology))
        t.node_params = node_topology_registry().read_params(node, t.node_topology);
    t.die_link = parse_link_params(node.child("link"), LinkParams{});
    if (const auto fb = node.optional_child("fallback")) {
        t.has_fallback = true;
        t.fallback_link = parse_link_params(*fb, LinkParams{});
        t.host_copy_bytes_per_s = kFallback.byte_rate(*fb, "host_copy");
    }

    if (const auto so = n.optional_child("scale_out")) {
        t.scale_out = kScaleOut.string(*so, "topology");
        bool has_nic = false;
        if (written_as(*so, "topology", t.scale_out)) {
            t.scale_out_params = scale_out_registry().read_params(*so, t.scale_out);
            has_nic = make_scale_out(t)->has_nic();
        }
        if (has_nic) t.nic_link = parse_link_params(so->child("nic"), LinkParams{});
        t.uplink = parse_link_params(so->child("uplink"), has_nic ? t.nic_link : t.die_link);
    }
    // The topology is checked as a whole only when its keys read well.
    if (!n.problems_reported()) {
        const std::string bad = t.problems();
        if (!bad.empty()) fail_at(n, bad);
    }

    if (const auto ep = n.optional_child("endpoint")) {
        p.endpoint.issue_overhead_ps = kEndpoint.time_ps(*ep, "issue_overhead");
        p.endpoint.memory_read_ps = kEndpoint.time_ps(*ep, "memory_read");
        p.endpoint.memory_write_ps = kEndpoint.time_ps(*ep, "memory_write");
    }
    // A collective's SDMA start-up per message is the DMA issue cost `figures links` uses, unless
    // network.collectives.sdma_start says otherwise.
    p.collectives.sdma_start_ps = p.endpoint.issue_overhead_ps;
    if (const auto co = n.optional_child("collectives")) {
        p.collectives.allreduce_algo =
            parse_collective_algo(kCollectives.string(*co, "allreduce_algorithm"));
        p.collectives.chunk_bytes = kCollectives.size(*co, "chunk");
        p.collectives.reduce_bytes_per_s =
            co->has("reduce_bandwidth") ? kCollectives.byte_rate(*co, "reduce_bandwidth") : 0.0;
        p.collectives.launch_overhead_ps = kCollectives.time_ps(*co, "launch_overhead");
        p.collectives.sdma_start_ps =
            kCollectives.time_ps(*co, "sdma_start", p.collectives.sdma_start_ps);
        p.collectives.aiv_start_ps = kCollectives.time_ps(*co, "aiv_start");
        if (co->has("aiv_direct")) {
            for (const std::string& name : kCollectives.string_list(*co, "aiv_direct")) {
                try {
                    p.collectives.aiv_direct.push_back(parse_collective_op(name));
                } catch (const InputError& e) {
                    co->report("aiv_direct", e.what());
                }
            }
        }
        p.collectives.notify_bytes = kCollectives.size(*co, "notify_bytes");
        p.collectives.notify_overhead_ps = kCollectives.time_ps(*co, "notify_overhead");
        p.collectives.die_work = kCollectives.boolean(*co, "die_work");
        p.collectives.buffer_bytes = kCollectives.size(*co, "buffer");
        try {
            p.collectives.ring_break = parse_ring_break(kCollectives.string(*co, "ring_break"));
        } catch (const ConfigError&) {
            throw;
        } catch (const InputError& e) {
            co->report("ring_break", e.what());
        }
        const std::string cbad = p.collectives.problems();
        if (!cbad.empty() && !n.problems_reported()) fail_at(*co, cbad);
    }
    if (n.has("faults")) {
        const auto list = n.child_list("faults");
        for (const ConfigNode& f : list) {
            LinkFault lf;
            lf.link = kFault.string(f, "link");
            lf.at_ps = kFault.time_ps(f, "at");
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

std::unique_ptr<Routing> make_routing(const NetworkParams& params) {
    return make_routing(params.routing, params.routing_params);
}

}  // namespace asim
