#include "testbenches/figures/hbm_figures.h"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "platforms/platform.h"
#include "testbenches/mem_replay/replay_engine.h"

namespace asim {

std::string FigureTable::csv() const {
    std::string s;
    for (std::size_t i = 0; i < columns.size(); ++i) s += (i ? "," : "") + columns[i];
    s += "\n";
    for (const auto& r : rows) {
        for (std::size_t i = 0; i < r.size(); ++i) s += (i ? "," : "") + r[i];
        s += "\n";
    }
    return s;
}

std::string FigureTable::json() const {
    nlohmann::json rows_json = nlohmann::json::array();
    for (const auto& r : rows) {
        nlohmann::json o = nlohmann::json::object();
        for (std::size_t i = 0; i < columns.size(); ++i) {
            char* end = nullptr;
            const double v = std::strtod(r[i].c_str(), &end);
            if (end != nullptr && *end == '\0' && !r[i].empty()) {
                o[columns[i]] = v;
            } else {
                o[columns[i]] = r[i];
            }
        }
        rows_json.push_back(o);
    }
    return nlohmann::json{{"table", name}, {"columns", columns}, {"rows", rows_json}}.dump(2) + "\n";
}

namespace {

uint64_t splitmix64(uint64_t& state) {
    state += 0x9E3779B97F4A7C15ULL;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// Reads at a fixed offered rate (requests per cycle), sequential or uniformly random lines.
ReplayResult run_point(const HbmDeviceParams& d, bool random, double per_cycle, uint64_t n) {
    const uint64_t access = d.org.access_bytes();
    const uint64_t lines = d.org.capacity_bytes() / access;
    uint64_t i = 0, state = 1;
    auto next = [&](MemRecord& r) {
        if (i == n) return false;
        r.is_write = false;
        r.cycle = per_cycle > 0 ? static_cast<uint64_t>(static_cast<double>(i) / per_cycle) : 0;
        r.addr = (random ? splitmix64(state) % lines : i % lines) * access;
        ++i;
        return true;
    };
    return run_replay(d, next, 0, [] { return std::string("figures hbm"); });
}

}  // namespace

std::vector<FigureTable> hbm_figures(const HbmFiguresOptions& o) {
    Platform platform = load_platform(o.platform, o.overrides);
    const HbmDeviceParams& d = platform.die.hbm.device;
    const double tck_ns = static_cast<double>(d.timing.tCK_ps) * 1e-3;
    const double bytes = static_cast<double>(d.org.access_bytes());
    const double peak = d.peak_bandwidth_bytes_per_s() * 1e-9;
    const double peak_per_cycle = static_cast<double>(d.org.channels()) / d.timing.burst_cycles;

    FigureTable curve{"hbm_load_latency",
                      {"pattern", "offered_fraction", "offered_gbps", "achieved_gbps", "latency_mean_ns",
                       "latency_p50_ns", "latency_p99_ns", "latency_mean_cycles", "row_hit_rate"},
                      {}};
    FigureTable peaks{"hbm_peak",
                      {"pattern", "sustained_gbps", "pin_peak_gbps", "fraction_of_peak", "unloaded_latency_ns"},
                      {}};
    const double fractions[] = {0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
    for (const bool random : {false, true}) {
        const char* pattern = random ? "random" : "sequential";
        for (const double f : fractions) {
            const ReplayResult r = run_point(d, random, f * peak_per_cycle, o.requests_per_point);
            const nlohmann::json s = replay_summary(r, d);
            curve.rows.push_back({pattern, fmt::format("{:.2f}", f), fmt::format("{:.1f}", f * peak),
                                  fmt::format("{:.1f}", s["steady_bandwidth_gbps"].get<double>()),
                                  fmt::format("{:.2f}", r.read_from_trace.mean() * tck_ns),
                                  fmt::format("{:.2f}", static_cast<double>(r.read_from_trace.percentile(0.5)) * tck_ns),
                                  fmt::format("{:.2f}", static_cast<double>(r.read_from_trace.percentile(0.99)) * tck_ns),
                                  fmt::format("{:.1f}", r.read_from_trace.mean()),
                                  fmt::format("{:.3f}", s["read_row_hit_rate"].get<double>())});
        }
        const ReplayResult sat = run_point(d, random, 0.0, o.requests_per_point * 4);
        const nlohmann::json s = replay_summary(sat, d);
        const ReplayResult idle = run_point(d, random, 0.01 * peak_per_cycle, o.requests_per_point / 4);
        peaks.rows.push_back({pattern, fmt::format("{:.1f}", s["steady_bandwidth_gbps"].get<double>()),
                              fmt::format("{:.1f}", peak),
                              fmt::format("{:.3f}", s["steady_bandwidth_gbps"].get<double>() / peak),
                              fmt::format("{:.2f}", idle.read_from_accept.mean() * tck_ns)});
    }
    (void)bytes;
    return {curve, peaks};
}

}  // namespace asim
