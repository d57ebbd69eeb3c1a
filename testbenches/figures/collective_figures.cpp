#include "testbenches/figures/collective_figures.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <numeric>

#include "models/common/errors.h"
#include "models/common/trace.h"
#include "models/common/units.h"
#include "models/interconnect/collectives/collective_engine.h"
#include "models/interconnect/network/flow_network.h"
#include "platforms/platform.h"
#include "testbenches/command/progress.h"
#include "testbenches/figures/link_figures.h"

namespace asim {

namespace {

struct RunOutcome {
    int64_t time_ps;
    uint64_t events;
    FlowNetworkStats network;
    CollectiveResult result;
};

RunOutcome run_one(const Topology& topology, const NetworkParams& net,
                   const CollectiveRequest& request, const std::vector<uint32_t>& faults) {
    FlowNetwork network(topology, net.max_paths, make_routing(net));
    for (std::size_t i = 0; i < faults.size(); ++i)
        network.set_link_down(faults[i], net.faults[i].at_ps);
    CollectiveEngine engine(network, net.collectives);
    const uint32_t id = engine.start(request, 0);
    // A progress line over the schedule's steps: the network runs one instant at a time, and
    // every 4096 instants the share of steps done is measured (a pass over the ranks).
    ProgressLine progress(fmt::format("figures collectives: {} B", request.bytes), "", 1'000'000);
    if (progress.enabled()) {
        for (uint64_t instants = 0; network.next_event_ps() != std::numeric_limits<int64_t>::max();
             ++instants) {
            network.run_until(network.next_event_ps());
            if (instants % 4096 == 0) {
                progress.update(static_cast<uint64_t>(engine.progress(id) * 1e6),
                                "simulated " + units::format_time_ps(network.now_ps()));
            }
        }
        progress.finish(1'000'000);
    }
    engine.run();
    const CollectiveResult& r = engine.result(id);
    return {r.end_ps - r.start_ps, network.stats().events, network.stats(), r};
}

double parse_skew(const std::string& text) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || v < 0 || v > 100)
        throw InputError(
            fmt::format("--skew {}: must be a Zipf exponent from 0 (uniform) to 100", text));
    return v;
}

// Receive totals of an all-to-all-v matrix: the hottest rank's and the mean, for stderr.
std::string imbalance(const std::vector<uint64_t>& counts, uint32_t p) {
    std::vector<uint64_t> in(p, 0);
    uint64_t total = 0;
    for (uint32_t i = 0; i < p; ++i)
        for (uint32_t j = 0; j < p; ++j) {
            in[j] += counts[static_cast<std::size_t>(i) * p + j];
            total += counts[static_cast<std::size_t>(i) * p + j];
        }
    const auto hot = std::max_element(in.begin(), in.end()) - in.begin();
    const double mean = static_cast<double>(total) / p;
    return fmt::format(
        "rank {} receives the most, {} B ({:.2f}x the mean {:.0f} B)", hot,
        in[static_cast<std::size_t>(hot)],
        mean > 0 ? static_cast<double>(in[static_cast<std::size_t>(hot)]) / mean : 0.0, mean);
}

}  // namespace

std::vector<uint64_t> zipf_counts(uint32_t p, uint64_t size, double skew) {
    std::vector<double> weight(p);
    for (uint32_t j = 0; j < p; ++j) weight[j] = std::pow(static_cast<double>(j) + 1.0, -skew);
    const double sum = std::accumulate(weight.begin(), weight.end(), 0.0);
    std::vector<uint64_t> row(p);
    uint64_t given = 0;
    for (uint32_t j = 0; j < p; ++j) {
        row[j] = static_cast<uint64_t>(std::floor(static_cast<double>(size) * weight[j] / sum));
        given += row[j];
    }
    // Rounding leaves fewer than p bytes (or, through floating point, a few too many): one byte
    // each to (or from) the hottest receivers, so the row sums to `size`.
    for (uint32_t j = 0; given < size; j = (j + 1) % p, ++given) ++row[j];
    for (uint32_t j = 0; given > size; j = (j + 1) % p) {
        if (row[j] == 0) continue;
        --row[j];
        --given;
    }
    std::vector<uint64_t> counts;
    counts.reserve(static_cast<std::size_t>(p) * p);
    for (uint32_t i = 0; i < p; ++i) counts.insert(counts.end(), row.begin(), row.end());
    return counts;
}

std::vector<FigureTable> collective_figures(const CollectiveFiguresOptions& o) {
    const CollectiveOp op = parse_collective_op(o.op);
    if (op != CollectiveOp::alltoallv) {
        if (!o.skew.empty())
            throw InputError(
                fmt::format("--skew: only --op alltoallv takes it (--op is {})", o.op));
        if (!o.counts.empty())
            throw InputError(
                fmt::format("--counts: only --op alltoallv takes it (--op is {})", o.op));
    }
    if (!o.skew.empty() && !o.counts.empty())
        throw InputError("--skew and --counts: give one (--counts sets every pair's size itself)");
    if (!o.counts.empty() && o.sizes_given)
        throw InputError("--sizes and --counts: give one (--counts sets every pair's size itself)");
    const double skew = o.skew.empty() ? 0.0 : parse_skew(o.skew);
    std::vector<uint64_t> sizes =
        o.counts.empty() ? parse_size_list(o.sizes, "--sizes") : std::vector<uint64_t>{0};
    const Platform platform = load_platform(o.platform, o.overrides);
    if (!platform.network)
        throw InputError(fmt::format("platform {} has no network: section", platform.name));
    const NetworkParams net = with_cli_faults(*platform.network, o.faults);
    const Topology topology(net.topology);
    const std::vector<uint32_t> faults = resolve_faults(topology, net);
    const uint32_t dies = o.dies == 0 ? topology.dies() : o.dies;
    if (dies > topology.dies())
        throw InputError(
            fmt::format("--dies {}: the group names dies that do not exist ({} has dies 0..{})",
                        dies, platform.name, topology.dies() - 1));
    CollectiveRequest request;
    request.op = op;
    request.algo = !o.algo.empty()                 ? parse_collective_algo(o.algo)
                   : op == CollectiveOp::allreduce ? net.collectives.allreduce_algo
                                                   : algorithms_for(op).front();
    if (o.algo.empty() && request.algo == CollectiveAlgo::hierarchical &&
        dies % net.topology.dies_per_node != 0)
        request.algo = CollectiveAlgo::ring;  // the default on a partial node: the flat ring
    request.group.resize(dies);
    std::iota(request.group.begin(), request.group.end(), 0u);
    const double p = dies;
    const double factor = op == CollectiveOp::allreduce ? 2.0 * (p - 1) / p
                          : (op == CollectiveOp::allgather || op == CollectiveOp::reducescatter ||
                             op == CollectiveOp::alltoall || op == CollectiveOp::alltoallv)
                              ? (p - 1) / p
                              : 1.0;
    if (op == CollectiveOp::alltoallv && !o.counts.empty()) {
        request.counts = read_counts(o.counts, dies);
        const uint64_t total =
            std::accumulate(request.counts.begin(), request.counts.end(), uint64_t{0});
        sizes = {total / dies};  // the mean a rank sends
    }
    FigureTable table{fmt::format("collectives_{}", to_string(op)),
                      {"size_bytes", "time_us", "algbw_GBps", "busbw_GBps"},
                      {}};
    for (const uint64_t size : sizes) {
        request.bytes = size;
        if (op == CollectiveOp::alltoallv) {
            if (o.counts.empty()) request.counts = zipf_counts(dies, size, skew);
            std::cerr << fmt::format("alltoallv: {}: {}\n",
                                     o.counts.empty()
                                         ? fmt::format("skew {} (Zipf over receivers)", skew)
                                         : fmt::format("counts from {}", o.counts),
                                     imbalance(request.counts, dies));
        }
        const auto wall0 = std::chrono::steady_clock::now();
        const RunOutcome r = run_one(topology, net, request, faults);
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
        const double us = static_cast<double>(r.time_ps) * 1e-6;
        const double algbw = static_cast<double>(size) / (us * 1e-6) * 1e-9;
        table.rows.push_back({std::to_string(size), fmt::format("{:.3f}", us),
                              fmt::format("{:.3f}", algbw), fmt::format("{:.3f}", algbw * factor)});
        std::cerr << fmt::format(
            "collectives: {} {} on {} dies, {} B: {:.3f} us simulated, {:.3f} s wall, {} events "
            "({:.3g} events/s), {} transfers, {} rate solves over {:.1f} flows on average\n",
            to_string(op), to_string(request.algo), dies, size, us, wall, r.events,
            wall > 0 ? static_cast<double>(r.events) / wall : 0.0, r.network.transfers,
            r.network.rate_solves,
            r.network.rate_solves ? static_cast<double>(r.network.solved_flows) /
                                        static_cast<double>(r.network.rate_solves)
                                  : 0.0);
        if (r.result.ring_broken)
            std::cerr << fmt::format(
                "ring break: a ring hop crosses the host; ran {} (alpha-beta estimates: ring "
                "forwarded over the host {:.3f} us, star through the host {:.3f} us; "
                "network.collectives.ring_break={})\n",
                r.result.host_star ? "the star through the host"
                                   : "the ring, forwarded over the host",
                static_cast<double>(r.result.estimate_forward_ps) * 1e-6,
                static_cast<double>(r.result.estimate_star_ps) * 1e-6,
                to_string(net.collectives.ring_break));
        if (!faults.empty()) {
            const RunOutcome healthy = run_one(topology, net, request, {});
            std::cerr << fmt::format(
                "faults: {} link(s) down; {} B takes {:.3f} us against {:.3f} us without "
                "faults (slowdown {:.2f}x)\n",
                faults.size(), size, us, static_cast<double>(healthy.time_ps) * 1e-6,
                static_cast<double>(r.time_ps) / static_cast<double>(healthy.time_ps));
        }
    }
    return {table};
}

}  // namespace asim
