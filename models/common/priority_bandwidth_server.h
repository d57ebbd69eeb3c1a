// A bandwidth server with two classes, demand and background (prefetch, migration): demand
// first, as DESIGN §5 asks of every arbiter a prefetch shares with demand.
//
// Non-preemptive priority at transfer granularity, computed arithmetically like
// BandwidthServer: a demand transfer waits for the demand work reserved before it and for the
// background transfer in service when it arrives (it does not wait for background work queued
// behind that one); the background transfers reserved after it queue behind it. A background
// transfer waits for everything reserved before it.
//
// Approximation: latencies are computed when a transfer is reserved, so background transfers
// already granted are not pushed back by demand that arrives later; in a window where both
// overlap the server can move up to one background backlog more than its rate. The background
// backlog is bounded by its issuers (the H-JSD's SDMA slots, the migration budget), so the excess
// is bounded too; `overlap_bytes()` reports how much of it there was (the demand time shared
// with the latest kKeep background transfers granted, by interval). Summed over a long run with
// background always outstanding it is not small (2.4 % of a pool port's time on a DeepSeek-V3
// decode step), so the pool port grants H-JSD prefetches only when idle
// (TierRouter::await_idle_port).
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <iterator>

#include "models/common/bandwidth_server.h"
#include "models/common/clock_domain.h"

namespace asim {

class PriorityBandwidthServer {
public:
    PriorityBandwidthServer(const ClockDomain* clock, double bytes_per_cycle)
        : m_server(clock, bytes_per_cycle), m_clock(clock) {}

    using Grant = BandwidthServer::Grant;

    // `extra`: cycles the transfer holds the server beyond its bytes' time (a bus turnaround).
    Grant reserve(Picoseconds arrival, uint64_t bytes, bool background, Cycles extra = 0) {
        const Cycles at = m_clock->ps_to_cycles_ceil(arrival);
        const Cycles busy = m_server.occupancy_cycles(bytes) + extra;
        Cycles start;
        if (background) {
            start = std::max(at, m_all_free);
            m_all_free = start + busy;
            m_background.push_back({start, m_all_free});
            m_background_end = m_all_free;
            if (m_background.size() > kKeep) m_background.pop_front();
        } else {
            // The background transfer in service at `at`, if any, finishes first. The spans are
            // in start order and disjoint (each starts at or after m_all_free, which never
            // decreases), so it is the last one starting at or before `at`; when the latest ends
            // by `at` there is none, and the spans (another host cache line) are not read.
            Cycles in_service_end = 0;
            if (at < m_background_end) {
                const auto after =
                    std::upper_bound(m_background.begin(), m_background.end(), at,
                                     [](Cycles v, const Span& s) { return v < s.start; });
                if (after != m_background.begin() && at < std::prev(after)->end)
                    in_service_end = std::prev(after)->end;
            }
            start = std::max({at, m_demand_free, in_service_end});
            m_demand_free = start + busy;
            // Background work not yet started moves behind this transfer; the spans already
            // granted stay where they are: the time this transfer shares with them is overlap.
            if (m_all_free > start) {
                if (!m_background.empty() && start < m_background_end)
                    m_overlap_cycles += occupied_within(m_background.begin(), m_background.end(),
                                                        start, start + busy);
                m_all_free += busy;
            } else {
                m_all_free = m_demand_free;
            }
        }
        m_busy_cycles += busy;
        m_bytes += bytes;
        return {m_clock->cycles_to_ps(start), m_clock->cycles_to_ps(start + busy)};
    }

    Picoseconds free_at() const {
        return m_clock->cycles_to_ps(std::max(m_all_free, m_demand_free));
    }
    Cycles busy_cycles() const { return m_busy_cycles; }
    uint64_t bytes() const { return m_bytes; }
    // Bytes' worth of demand time that overlapped background transfers already granted.
    uint64_t overlap_bytes() const {
        return static_cast<uint64_t>(static_cast<double>(m_overlap_cycles) *
                                     m_server.bytes_per_cycle());
    }
    double bytes_per_cycle() const { return m_server.bytes_per_cycle(); }
    const ClockDomain& clock() const { return *m_clock; }

private:
    static constexpr std::size_t kKeep = 64;  // recent background transfers, for "in service"
    struct Span {
        Cycles start;
        Cycles end;
    };
    BandwidthServer m_server;  // occupancy arithmetic only
    const ClockDomain* m_clock;
    Cycles m_demand_free = 0;
    Cycles m_all_free = 0;
    Cycles m_busy_cycles = 0;
    Cycles m_overlap_cycles = 0;
    uint64_t m_bytes = 0;
    std::deque<Span> m_background;  // the latest kKeep, in start order
    Cycles m_background_end = 0;    // the end of the latest (0: none yet)
};

}  // namespace asim
