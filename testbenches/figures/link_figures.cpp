#include "testbenches/figures/link_figures.h"

#include <fmt/format.h>

#include "models/common/errors.h"
#include "models/common/trace.h"
#include "models/common/units.h"
#include "models/interconnect/link/packet_path.h"
#include "models/interconnect/topology/topology.h"
#include "platforms/platform.h"

namespace asim {

std::vector<uint64_t> parse_size_list(const std::string& text, const std::string& option) {
    auto one = [&](const std::string& s) {
        uint64_t bytes = 0;
        try {
            bytes = units::bytes(s);
        } catch (const units::UnitError& e) {
            throw InputError(fmt::format("{} {}: {}", option, text, e.what()));
        }
        // Past 2^60 the doubling of A..B wraps, and byte counts times 8 wrap 64 bits.
        if (bytes > trace::kMaxOpWork) {
            throw InputError(
                fmt::format("{} {}: '{}' is more than 2^60 bytes, the largest size a figure takes",
                            option, text, s));
        }
        return bytes;
    };
    std::vector<uint64_t> out;
    const auto dots = text.find("..");
    if (dots != std::string::npos) {
        const uint64_t lo = one(text.substr(0, dots)), hi = one(text.substr(dots + 2));
        if (lo == 0 || lo > hi)
            throw InputError(fmt::format("{} {}: need 0 < first <= last", option, text));
        for (uint64_t s = lo; s <= hi; s *= 2) out.push_back(s);
        return out;
    }
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = text.find(',', start);
        const std::string item =
            text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        out.push_back(one(item));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

namespace {

std::vector<std::vector<LinkParams>> link_chains(const Topology& t,
                                                 const std::vector<Path>& paths) {
    std::vector<std::vector<LinkParams>> chains;
    for (const Path& p : paths) {
        std::vector<LinkParams> chain;
        for (uint32_t l : p) chain.push_back(t.link_params(l));
        chains.push_back(std::move(chain));
    }
    return chains;
}

}  // namespace

NetworkParams with_cli_faults(NetworkParams net, const std::vector<std::string>& faults) {
    for (const std::string& link : faults) net.faults.push_back({link, 0, "--fault " + link});
    return net;
}

std::vector<FigureTable> link_figures(const LinkFiguresOptions& o) {
    const std::vector<uint64_t> sizes = parse_size_list(o.sizes, "--sizes");
    const Platform platform = load_platform(o.platform, o.overrides);
    if (!platform.network)
        throw InputError(fmt::format("platform {} has no network: section", platform.name));
    const NetworkParams net = with_cli_faults(*platform.network, o.faults);
    const Topology topology(net.topology);
    // A figure is a steady-state measurement: every declared fault counts as down.
    std::vector<char> down(topology.links().size(), 0);
    for (const uint32_t l : resolve_faults(topology, net)) down[l] = 1;
    FigureTable table{"links", {"path", "op", "size_bytes", "latency_us", "bandwidth_GBps"}, {}};
    struct Peer {
        const char* path;
        uint32_t die;
    };
    std::vector<Peer> peers;
    if (net.topology.dies_per_node > 1)
        peers.push_back({"intra_node", topology.farthest_die_in_node(0)});
    if (net.topology.nodes() > 1)
        peers.push_back({"inter_node", topology.farthest_die_outside_node(0)});
    const auto routing = make_routing(net);
    for (const Peer& peer : peers) {
        const auto forward =
            link_chains(topology, routing->routes(topology, 0, peer.die, net.max_paths, down));
        const auto reverse =
            link_chains(topology, routing->routes(topology, peer.die, 0, net.max_paths, down));
        for (const LinkOp op : {LinkOp::read, LinkOp::write}) {
            for (const uint64_t size : sizes) {
                const int64_t ps = remote_access_ps(forward, reverse, size, op, net.endpoint, 1);
                const double us = static_cast<double>(ps) * 1e-6;
                table.rows.push_back(
                    {peer.path, to_string(op), std::to_string(size), fmt::format("{:.4f}", us),
                     fmt::format("{:.3f}", static_cast<double>(size) /
                                               (static_cast<double>(ps) * 1e-12) * 1e-9)});
            }
        }
    }
    return {table};
}

}  // namespace asim
