#include "testbenches/figures/hbm_figures.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "models/memory/hbm/hbm_controller.h"
#include "platforms/platform.h"
#include "testbenches/mem_replay/replay_engine.h"

namespace asim {

namespace {

uint64_t splitmix64(uint64_t& state) {
    state += 0x9E3779B97F4A7C15ULL;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// One load point: `n` reads offered at `per_cycle` requests per cycle (request i arrives at cycle
// floor(i / per_cycle); 0: all at cycle 0), sequential or uniformly random accesses. Each
// request waits in a queue of its own (pseudo-)channel until that channel accepts it (a virtual
// output queue, as a network in front of the controllers has), so a full channel holds back
// only its own requests: the curve measures the device, not the head-of-line blocking of one
// in-order source over 256 channels (mem-replay's DRAMSim3 front end, which a refreshing bank's
// channel stalls whole).
struct Point {
    uint64_t n = 0;
    uint64_t last_arrival = 0;  // cycle of request n - 1's arrival
    uint64_t first_completion = 0;
    uint64_t completed_by_end = 0;     // reads completed by last_arrival + first_completion
    std::vector<uint64_t> completion;  // per request
    LatencyHistogram from_arrival, from_accept;
    HbmChannelStats counters;
};

Point run_point(const HbmDeviceParams& d, bool random, double per_cycle, uint64_t n) {
    HbmController ctl(d);
    const uint64_t access = d.transaction_size();
    const uint64_t lines = d.org.capacity_bytes() / access;
    auto arrival = [&](uint64_t i) {
        return per_cycle > 0 ? static_cast<uint64_t>(static_cast<double>(i) / per_cycle) : 0;
    };
    Point p;
    p.n = n;
    p.last_arrival = n ? arrival(n - 1) : 0;
    p.completion.assign(n, 0);
    std::vector<uint64_t> accepted(n, 0);
    struct Waiting {
        uint64_t tag, addr;
    };
    std::vector<std::vector<Waiting>> voq(ctl.channel_count());
    std::vector<std::size_t> voq_head(ctl.channel_count(), 0);
    uint64_t waiting = 0;
    std::vector<HbmCompletion> done;
    uint64_t next = 0, state = 1, completed = 0, now = 0;
    auto drain = [&] {
        for (const HbmCompletion& c : done) {
            p.completion[c.tag] = c.cycle;
            p.from_arrival.add(c.cycle - arrival(c.tag));
            p.from_accept.add(c.cycle - accepted[c.tag]);
            ++completed;
        }
        done.clear();
    };
    auto offer = [&](uint64_t tag, uint64_t addr) {
        if (!ctl.can_accept(addr, false)) return false;
        accepted[tag] = now;
        ctl.accept(now, addr, false, tag, done);
        return true;
    };
    while (completed < n) {
        ctl.tick(now, done);
        drain();
        if (waiting != 0) {
            for (uint32_t ch = 0; ch < voq.size(); ++ch) {
                auto& q = voq[ch];
                std::size_t& h = voq_head[ch];
                while (h < q.size() && offer(q[h].tag, q[h].addr)) ++h, --waiting;
                if (h == q.size()) q.clear(), h = 0;
            }
        }
        while (next < n && arrival(next) <= now) {
            const uint64_t addr = (random ? splitmix64(state) % lines : next % lines) * access;
            const uint32_t ch = ctl.mapping().decode(addr).channel;
            if (voq[ch].empty() && offer(next, addr)) {
                ++next;
                continue;
            }
            voq[ch].push_back({next++, addr});
            ++waiting;
        }
        drain();
        uint64_t t = ctl.next_event();
        if (next < n) t = std::min(t, std::max(arrival(next), now + 1));
        if (t == kHbmNever) break;  // nothing left to happen (cannot be reached with reads)
        now = t;
    }
    p.counters = ctl.totals();
    p.first_completion = n ? *std::min_element(p.completion.begin(), p.completion.end()) : 0;
    p.completed_by_end = static_cast<uint64_t>(
        std::count_if(p.completion.begin(), p.completion.end(),
                      [&](uint64_t c) { return c <= p.last_arrival + p.first_completion; }));
    return p;
}

}  // namespace

double achieved_requests_per_cycle(uint64_t completed, uint64_t last_arrival) {
    if (completed < 2) return 0.0;
    return static_cast<double>(completed - 1) / static_cast<double>(last_arrival + 1);
}

std::vector<FigureTable> hbm_figures(const HbmFiguresOptions& o) {
    Platform platform = load_platform(o.platform, o.overrides);
    const HbmDeviceParams& d = platform.die.hbm.device;
    const double tck_ns = static_cast<double>(d.timing.tCK_ps) * 1e-3;
    const double bytes = static_cast<double>(d.transaction_size());  // per request
    const double peak = d.peak_bandwidth_bytes_per_s() * 1e-9;
    const double peak_per_cycle = static_cast<double>(d.org.channels()) / d.timing.burst_cycles *
                                  static_cast<double>(d.org.access_bytes()) / bytes;
    // Each load point spans the same time (the length sets how far a backlog near saturation has
    // grown, so a fixed request count would make the loaded points short and the light ones long).
    // 8192 cycles of tCK, and with all-bank refresh at least 8 tREFI: a refresh takes a whole
    // rank away for tRFC, so a run of a few tREFI gains or loses one (HBM2: +-3 %).
    const double points_cycles =
        d.ctrl.refresh == RefreshMode::kAllBank ? std::max(8192.0, 8.0 * d.timing.tREFI) : 8192.0;
    auto requests_at = [&](double per_cycle) {
        if (o.requests_per_point != 0) return o.requests_per_point;
        return std::max<uint64_t>(20000,
                                  static_cast<uint64_t>(std::ceil(per_cycle * points_cycles)));
    };
    const uint64_t n = requests_at(peak_per_cycle);
    FigureTable curve{
        "hbm_load_latency",
        {"pattern", "offered_fraction", "offered_gbps", "achieved_gbps", "latency_mean_ns",
         "latency_p50_ns", "latency_p99_ns", "latency_mean_cycles", "row_hit_rate"},
        {}};
    FigureTable peaks{
        "hbm_peak",
        {"pattern", "sustained_gbps", "pin_peak_gbps", "fraction_of_peak", "unloaded_latency_ns"},
        {}};
    auto hit_rate = [](const HbmChannelStats& c) {
        return c.reads ? static_cast<double>(c.read_row_hits) / static_cast<double>(c.reads) : 0.0;
    };
    const double fractions[] = {0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3,
                                0.4,  0.5,  0.6, 0.7,  0.8, 0.9,  1.0};
    for (const bool random : {false, true}) {
        const char* pattern = random ? "random" : "sequential";
        for (const double f : fractions) {
            const Point r =
                run_point(d, random, f * peak_per_cycle, requests_at(f * peak_per_cycle));
            const double achieved =
                achieved_requests_per_cycle(r.completed_by_end, r.last_arrival) * bytes / tck_ns;
            curve.rows.push_back(
                {pattern, fmt::format("{:.2f}", f), fmt::format("{:.1f}", f * peak),
                 fmt::format("{:.1f}", achieved),
                 fmt::format("{:.2f}", r.from_arrival.mean() * tck_ns),
                 fmt::format("{:.2f}",
                             static_cast<double>(r.from_arrival.percentile(0.5)) * tck_ns),
                 fmt::format("{:.2f}",
                             static_cast<double>(r.from_arrival.percentile(0.99)) * tck_ns),
                 fmt::format("{:.1f}", r.from_arrival.mean()),
                 fmt::format("{:.3f}", hit_rate(r.counters))});
        }
        // The service rate: every request offered at cycle 0, bandwidth between the 10 % and the
        // 90 % completion, so start-up and drain are left out (as mem-replay's steady bandwidth).
        Point sat = run_point(d, random, 0.0, n);
        std::sort(sat.completion.begin(), sat.completion.end());
        const uint64_t i10 = sat.n / 10, i90 = sat.n * 9 / 10;
        const double sustained =
            static_cast<double>(i90 - i10) * bytes /
            (static_cast<double>(sat.completion[i90] - sat.completion[i10]) * tck_ns);
        const Point idle =
            run_point(d, random, 0.01 * peak_per_cycle, requests_at(0.01 * peak_per_cycle));
        peaks.rows.push_back({pattern, fmt::format("{:.1f}", sustained),
                              fmt::format("{:.1f}", peak), fmt::format("{:.3f}", sustained / peak),
                              fmt::format("{:.2f}", idle.from_accept.mean() * tck_ns)});
    }
    return {curve, peaks};
}

}  // namespace asim
