#include "testbenches/figures/l2_figures.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "models/common/clock_domain.h"
#include "models/common/errors.h"
#include "platforms/platform.h"
#include "testbenches/mem_replay/l2_replay_bench.h"

namespace asim {

namespace {

constexpr uint64_t kLatencySamples = 32;
const double kFractions[] = {0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.2};

// Line-sized reads of lines [first, first + lines) in order, wrapping, `n` of them, the i-th at
// cycle i / per_cycle (all at cycle 0 when per_cycle is 0).
L2ReplayPhase sequential(uint64_t line_bytes, uint64_t first, uint64_t lines, uint64_t n,
                         double per_cycle) {
    auto i = std::make_shared<uint64_t>(0);
    L2ReplayPhase ph;
    ph.request_bytes = line_bytes;
    ph.next = [=](MemRecord& r, std::string&) {
        if (*i == n) return false;
        r.is_write = false;
        r.addr = (first + *i % lines) * line_bytes;
        r.cycle = per_cycle > 0 ? static_cast<uint64_t>(static_cast<double>(*i) / per_cycle) : 0;
        ++*i;
        return true;
    };
    ph.where = [] { return std::string("figures l2"); };
    return ph;
}

}  // namespace

std::vector<FigureTable> l2_figures(const L2FiguresOptions& o) {
    set_kernel_time_resolution();
    Platform platform = load_platform(o.platform, o.overrides);
    const L2Params& l2 = platform.die.l2;
    const HbmParams& hbm = platform.die.hbm;
    const uint64_t line = l2.line_bytes;
    const double cycle_ns = 1e9 / static_cast<double>(l2.clock_hz);
    const double slice_bytes_per_cycle =
        l2.slice_bandwidth_bytes_per_s / static_cast<double>(l2.clock_hz);
    const double slices_peak = l2.slice_bandwidth_bytes_per_s * l2.slices;
    const double hbm_peak = hbm.bandwidth_bytes_per_s();
    const auto transfer_cycles =
        static_cast<uint64_t>(std::ceil(static_cast<double>(line) / slice_bytes_per_cycle));

    // The resident set lives in the general class's partition: half of it at most, so LRU keeps
    // all of it whatever the set hash does.
    uint64_t general_bytes = 0;
    for (const auto& p : l2.partition_layout()) {
        if (std::find(p.classes.begin(), p.classes.end(), StreamClass::kGeneral) !=
            p.classes.end()) {
            general_bytes = uint64_t{p.ways} * l2.way_bytes();
        }
    }
    const uint64_t resident_lines = std::min<uint64_t>(4ULL << 20, general_bytes / 2) / line;
    if (resident_lines == 0)
        throw InputError("figures l2: the general stream class has no L2 partition to hit in");
    const uint64_t capacity_lines = l2.address_space_bytes / line;
    // Spacing of the unloaded samples: a miss and then some, so nothing queues.
    const auto spacing = static_cast<uint64_t>(
        2.0 * (static_cast<double>(hbm.unloaded_latency_ps()) * 1e-3 / cycle_ns) +
        4.0 * l2.hit_latency_cycles + 1000.0);

    std::vector<L2ReplayPhase> phases;
    phases.push_back(sequential(line, 0, resident_lines, resident_lines, 0.0));  // warm-up
    phases.push_back(
        sequential(line, 0, resident_lines, kLatencySamples, 1.0 / static_cast<double>(spacing)));
    uint64_t fresh = resident_lines;  // lines never touched: every read of them misses
    auto fresh_lines = [&](uint64_t n) {
        if (fresh + n > capacity_lines) fresh = resident_lines;
        const uint64_t first = fresh;
        fresh += n;
        return first;
    };
    phases.push_back(sequential(line, fresh_lines(kLatencySamples), kLatencySamples,
                                kLatencySamples, 1.0 / static_cast<double>(spacing)));
    const double slice_lines_per_cycle =
        slices_peak / static_cast<double>(l2.clock_hz) / static_cast<double>(line);
    const double hbm_lines_per_cycle =
        hbm_peak / static_cast<double>(l2.clock_hz) / static_cast<double>(line);
    for (const double f : kFractions) {
        phases.push_back(
            sequential(line, 0, resident_lines, o.requests_per_point, f * slice_lines_per_cycle));
    }
    for (const double f : kFractions) {
        phases.push_back(sequential(line, fresh_lines(o.requests_per_point), o.requests_per_point,
                                    o.requests_per_point, f * hbm_lines_per_cycle));
    }

    StatsRegistry stats;
    L2ReplayBench bench("die", platform.die, stats, std::move(phases));
    bench.run();
    const auto& res = bench.results();

    FigureTable latency{
        "l2_latency",
        {"kind", "latency_cycles", "latency_ns", "hit_rate", "configured_hit_latency_cycles",
         "slice_transfer_cycles", "hbm_unloaded_latency_ns", "request_bytes"},
        {}};
    const char* kinds[] = {"hit", "miss"};
    for (std::size_t k = 0; k < 2; ++k) {
        const L2PhaseResult& r = res[1 + k];
        const double accesses = static_cast<double>(r.l2_hits + r.l2_misses);
        latency.rows.push_back(
            {kinds[k], fmt::format("{:.1f}", r.read_from_accept.mean()),
             fmt::format("{:.2f}", r.read_from_accept.mean() * cycle_ns),
             fmt::format("{:.3f}", accesses > 0 ? static_cast<double>(r.l2_hits) / accesses : 0.0),
             std::to_string(l2.hit_latency_cycles), std::to_string(transfer_cycles),
             fmt::format("{:.2f}", static_cast<double>(hbm.unloaded_latency_ps()) * 1e-3),
             std::to_string(line)});
    }

    FigureTable load{
        "l2_load_latency",
        {"pattern", "offered_fraction", "offered_gbps", "achieved_gbps", "latency_mean_ns",
         "latency_p50_ns", "latency_p99_ns", "latency_mean_cycles", "hit_rate"},
        {}};
    const std::size_t n = std::size(kFractions);
    for (std::size_t s = 0; s < 2; ++s) {
        const char* pattern = s == 0 ? "l2_resident" : "miss_stream";
        const double peak = s == 0 ? slices_peak : hbm_peak;
        for (std::size_t i = 0; i < n; ++i) {
            const L2PhaseResult& r = res[3 + s * n + i];
            const nlohmann::json sum = l2_replay_summary(r, l2.clock_hz, slices_peak);
            load.rows.push_back(
                {pattern, fmt::format("{:.2f}", kFractions[i]),
                 fmt::format("{:.1f}", kFractions[i] * peak * 1e-9),
                 fmt::format("{:.1f}", sum["steady_bandwidth_gbps"].get<double>()),
                 fmt::format("{:.2f}", r.read_from_trace.mean() * cycle_ns),
                 fmt::format("{:.2f}",
                             static_cast<double>(r.read_from_trace.percentile(0.5)) * cycle_ns),
                 fmt::format("{:.2f}",
                             static_cast<double>(r.read_from_trace.percentile(0.99)) * cycle_ns),
                 fmt::format("{:.1f}", r.read_from_trace.mean()),
                 fmt::format("{:.3f}", sum["l2_hit_rate"].get<double>())});
        }
    }
    return {latency, load};
}

}  // namespace asim
