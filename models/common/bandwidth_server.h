// A first-come first-served server that moves bytes at a fixed rate: the occupancy model of
// every shared port, slice and channel in the Foundation models. A request arriving at time t
// starts when the server is free (queueing behind earlier requests), occupies it for
// ceil(bytes / bytes_per_cycle) cycles of its clock, and finishes then. Contention therefore
// shows up as queueing delay; nothing is averaged away. Pure arithmetic: no kernel events.
#pragma once

#include <algorithm>
#include <cstdint>

#include "models/common/clock_domain.h"

namespace asim {

// Cycles of [from, to) that the spans [first, last) occupy: disjoint spans (members `start`,
// `end`) in start order, as the priority and calendar servers keep their granted background
// transfers.
template <class SpanIt>
Cycles occupied_within(SpanIt first, SpanIt last, Cycles from, Cycles to) {
    auto it =
        std::upper_bound(first, last, from, [](Cycles v, const auto& s) { return v < s.start; });
    if (it != first) --it;
    Cycles sum = 0;
    for (; it != last && it->start < to; ++it) {
        const Cycles lo = std::max(from, it->start), hi = std::min(to, it->end);
        if (lo < hi) sum += hi - lo;
    }
    return sum;
}

class BandwidthServer {
public:
    BandwidthServer(const ClockDomain* clock, double bytes_per_cycle)
        : m_clock(clock), m_bytes_per_cycle(bytes_per_cycle) {}

    struct Grant {
        Picoseconds start;
        Picoseconds end;
    };

    // Reserves the server for `bytes` arriving at `arrival`. Requests must be made in
    // non-decreasing order of arrival per server for strict FIFO; an earlier arrival made later
    // simply queues behind what is already reserved (the server never reorders).
    Grant reserve(Picoseconds arrival, uint64_t bytes) {
        const Cycles busy = occupancy_cycles(bytes);
        const Cycles end = reserve_cycles(m_clock->ps_to_cycles_ceil(arrival), busy, bytes);
        return {m_clock->cycles_to_ps(end - busy), m_clock->cycles_to_ps(end)};
    }
    // reserve() in cycles of the server's clock, for callers that convert once for many
    // reservations: `bytes` arriving at cycle `at` that occupy it `busy` cycles
    // (occupancy_cycles(bytes)); returns the cycle they finish.
    Cycles reserve_cycles(Cycles at, Cycles busy, uint64_t bytes) {
        const Cycles start = std::max(at, m_free_cycle);
        m_free_cycle = start + busy;
        m_busy_cycles += busy;
        m_bytes += bytes;
        return m_free_cycle;
    }

    Cycles occupancy_cycles(uint64_t bytes) const {
        const double c = static_cast<double>(bytes) / m_bytes_per_cycle;
        const auto whole = static_cast<Cycles>(c);
        return static_cast<double>(whole) < c ? whole + 1 : whole;
    }

    Picoseconds free_at() const { return m_clock->cycles_to_ps(m_free_cycle); }
    Cycles busy_cycles() const { return m_busy_cycles; }
    uint64_t bytes() const { return m_bytes; }
    double bytes_per_cycle() const { return m_bytes_per_cycle; }
    const ClockDomain& clock() const { return *m_clock; }

private:
    const ClockDomain* m_clock;
    double m_bytes_per_cycle;
    Cycles m_free_cycle = 0;
    Cycles m_busy_cycles = 0;
    uint64_t m_bytes = 0;
};

}  // namespace asim
