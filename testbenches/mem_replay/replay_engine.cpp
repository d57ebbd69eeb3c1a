#include "testbenches/mem_replay/replay_engine.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/common/errors.h"
#include "models/common/stats.h"

namespace asim {

void LatencyHistogram::add(uint64_t v) {
    if (m_n == 0 || v < m_min) m_min = v;
    ++m_n;
    m_sum += v;
    m_max = std::max(m_max, v);
    if (v < kExact) {
        if (v >= m_exact.size())
            m_exact.resize(std::min<uint64_t>(kExact, std::max<uint64_t>(1024, 2 * (v + 1))), 0);
        ++m_exact[v];
        return;
    }
    uint32_t e = 63 - static_cast<uint32_t>(__builtin_clzll(v));  // >= 16
    const uint64_t sub = (v >> (e - 6)) & 63;
    ++m_log[std::min<std::size_t>(e * 64 + sub, m_log.size() - 1)];
}

uint64_t LatencyHistogram::percentile(double q) const {
    if (m_n == 0) return 0;
    const uint64_t want = percentile_rank(q, m_n);
    if (want == 1) return m_min;  // the extremes are known exactly
    if (want == m_n) return m_max;
    uint64_t seen = 0;
    for (uint64_t v = 0; v < m_exact.size(); ++v) {
        seen += m_exact[v];
        if (seen >= want) return v;
    }
    for (std::size_t i = 0; i < m_log.size(); ++i) {
        if (seen + m_log[i] >= want) {
            const uint64_t e = i / 64, sub = i % 64;
            const uint64_t low = (uint64_t{64} + sub) << (e - 6);
            const uint64_t high =
                e == 63 && sub == 63 ? ~uint64_t{0} : (uint64_t{64} + sub + 1) << (e - 6);
            return percentile_in_bucket(want - seen, m_log[i], low, high, m_min, m_max);
        }
        seen += m_log[i];
    }
    return m_max;
}

void CompletionTimeline::add(uint64_t cycle) {
    while (cycle / m_width >= kBins) {
        for (std::size_t i = 0; i < kBins / 2; ++i) m_bins[i] = m_bins[2 * i] + m_bins[2 * i + 1];
        std::fill(m_bins.begin() + kBins / 2, m_bins.end(), 0);
        m_width *= 2;
    }
    ++m_bins[cycle / m_width];
    ++m_n;
}

uint64_t CompletionTimeline::cycle_of_fraction(double q) const {
    const uint64_t want =
        std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * static_cast<double>(m_n))));
    uint64_t seen = 0;
    for (std::size_t i = 0; i < kBins; ++i) {
        seen += m_bins[i];
        if (seen >= want) return (i + 1) * m_width - 1;
    }
    return kBins * m_width;
}

ReplayResult run_replay(const HbmDeviceParams& device, const std::function<bool(MemRecord&)>& next,
                        uint64_t issue_cap, const std::function<std::string()>& where) {
    HbmController ctl(device);
    // Ticks in which nothing happens are invisible here (requests enter only where they would
    // have entered anyway), so each command class is scanned only from its own ready cycle.
    ctl.set_per_class_scans(true);
    const uint64_t capacity = device.org.capacity_bytes();
    ReplayResult r;
    struct Pending {
        uint64_t trace_cycle, accept;
    };
    // Requests in flight by tag; a tag is a slot, reused once its request completed, so this
    // holds no more than the controller's queues.
    std::vector<Pending> pending;
    std::vector<uint64_t> free_tags;
    uint64_t in_flight = 0;
    std::vector<HbmCompletion> done;
    done.reserve(256);
    auto drain = [&] {
        for (const HbmCompletion& c : done) {
            const Pending p = pending[c.tag];
            free_tags.push_back(c.tag);
            --in_flight;
            r.total_cycles = std::max(r.total_cycles, c.cycle);
            r.completions.add(c.cycle);
            if (!c.is_write) {
                r.read_from_trace.add(c.cycle - std::min(c.cycle, p.trace_cycle));
                r.read_from_accept.add(c.cycle - p.accept);
            }
        }
        done.clear();
    };

    MemRecord rec;
    bool have = next(rec);
    uint64_t now = 0;
    for (;;) {
        ctl.tick(now, done);
        drain();
        uint64_t entered = 0;
        bool blocked = false;
        while (have && rec.cycle <= now && (issue_cap == 0 || entered < issue_cap)) {
            if (rec.addr >= capacity) {
                throw InputError(where() + ": address " + fmt::format("0x{:x}", rec.addr) +
                                 " is beyond the device capacity of " + std::to_string(capacity) +
                                 " B");
            }
            if (!ctl.can_accept(rec.addr, rec.is_write)) {
                blocked = true;
                break;
            }
            uint64_t tag = pending.size();
            if (free_tags.empty()) {
                pending.push_back({rec.cycle, now});
            } else {
                tag = free_tags.back();
                free_tags.pop_back();
                pending[tag] = {rec.cycle, now};
            }
            ++in_flight;
            ctl.accept(now, rec.addr, rec.is_write, tag, done);
            ++r.requests;
            ++(rec.is_write ? r.writes : r.reads);
            ++entered;
            have = next(rec);
        }
        drain();
        if (!have && in_flight == 0) break;
        uint64_t t = ctl.next_event();
        if (have && !blocked) t = std::min(t, std::max(rec.cycle, now + 1));
        now = t;
    }
    r.counters = ctl.totals();
    return r;
}

nlohmann::json replay_summary(const ReplayResult& r, const HbmDeviceParams& device) {
    const double tck_s = static_cast<double>(device.timing.tCK_ps) * 1e-12;
    const double bytes = static_cast<double>(device.transaction_size());
    const double total_s = static_cast<double>(r.total_cycles) * tck_s;
    const double bw = total_s > 0 ? static_cast<double>(r.requests) * bytes / total_s * 1e-9 : 0.0;
    const uint64_t t10 = r.completions.cycle_of_fraction(0.1),
                   t90 = r.completions.cycle_of_fraction(0.9);
    const double steady_n = std::floor(0.9 * static_cast<double>(r.requests)) -
                            std::floor(0.1 * static_cast<double>(r.requests));
    const double steady =
        t90 > t10 ? steady_n * bytes / (static_cast<double>(t90 - t10) * tck_s) * 1e-9 : bw;
    auto rate = [](uint64_t a, uint64_t b) {
        return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
    };
    const auto& c = r.counters;
    return {
        {"requests", r.requests},
        {"reads", r.reads},
        {"writes", r.writes},
        {"total_cycles", r.total_cycles},
        {"tck_ns", static_cast<double>(device.timing.tCK_ps) * 1e-3},
        {"request_bytes", device.transaction_size()},
        {"bandwidth_gbps", bw},
        {"steady_bandwidth_gbps", steady},
        {"peak_bandwidth_gbps", device.peak_bandwidth_bytes_per_s() * 1e-9},
        {"read_latency_mean_cycles", r.read_from_trace.mean()},
        {"read_latency_p50_cycles", r.read_from_trace.percentile(0.50)},
        {"read_latency_p95_cycles", r.read_from_trace.percentile(0.95)},
        {"read_latency_p99_cycles", r.read_from_trace.percentile(0.99)},
        {"read_latency_max_cycles", r.read_from_trace.max()},
        {"read_latency_from_accept_mean_cycles", r.read_from_accept.mean()},
        {"read_latency_from_accept_p50_cycles", r.read_from_accept.percentile(0.50)},
        {"read_latency_from_accept_p95_cycles", r.read_from_accept.percentile(0.95)},
        {"read_latency_from_accept_p99_cycles", r.read_from_accept.percentile(0.99)},
        {"read_latency_from_accept_max_cycles", r.read_from_accept.max()},
        {"read_row_hit_rate", rate(c.read_row_hits, c.reads)},
        {"write_row_hit_rate", rate(c.write_row_hits, c.writes)},
        {"reads_from_write_buffer", c.write_buffer_read_hits},
        {"activates", c.activates},
        {"precharges", c.precharges},
        {"refreshes", c.refreshes},
    };
}

}  // namespace asim
