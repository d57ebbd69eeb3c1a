// A bandwidth server that books each transfer into the earliest free gap at or after its arrival:
// the occupancy model of a device that many initiators reach with computed, future-dated times.
//
// BandwidthServer queues a transfer behind everything booked before it, which is right when one
// initiator books in time order. Several dies booking a shared device each at their own future
// times (a die whose port queue is 100 us deep books 100 us ahead) would make a transfer that
// arrives earlier wait behind one booked for later: idle time the device never had. Here the
// device keeps its booked intervals (merged when they touch) and a transfer takes the first gap
// long enough for it. Intervals that end before `forget_before` are dropped, so memory follows
// the booked-ahead window, not the run.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>

#include "models/common/bandwidth_server.h"
#include "models/common/clock_domain.h"

namespace asim {

class CalendarServer {
public:
    CalendarServer(const ClockDomain* clock, double bytes_per_cycle)
        : m_sizer(clock, bytes_per_cycle), m_clock(clock) {}

    // Demand first (DESIGN §5): a demand transfer takes the first gap among demand transfers (and
    // then also occupies the background calendar, from that start on); a background transfer
    // (prefetch, staging, migration) takes the first gap among all transfers. As in
    // PriorityBandwidthServer, background transfers already booked are not moved by later demand.
    BandwidthServer::Grant reserve(Picoseconds arrival, uint64_t bytes, bool background = false) {
        const Cycles busy = m_sizer.occupancy_cycles(bytes);
        const Cycles at = m_clock->ps_to_cycles_ceil(arrival);
        const Cycles start = background ? book(m_all, at, busy) : book(m_demand, at, busy);
        if (!background) book(m_all, start, busy);
        m_busy_cycles += busy;
        m_bytes += bytes;
        return {m_clock->cycles_to_ps(start), m_clock->cycles_to_ps(start + busy)};
    }

    // Drops intervals that ended before `t` (nothing can be booked before the kernel's time).
    void forget_before(Picoseconds t) {
        const Cycles c = m_clock->ps_to_cycles_floor(t);
        for (auto* booked : {&m_all, &m_demand}) {
            while (!booked->empty() && booked->begin()->second < c) booked->erase(booked->begin());
        }
    }

    Cycles busy_cycles() const { return m_busy_cycles; }
    uint64_t bytes() const { return m_bytes; }
    std::size_t intervals() const { return m_all.size() + m_demand.size(); }

private:
    using Calendar = std::map<Cycles, Cycles>;  // start -> end, disjoint, not touching
    // Books `busy` cycles in the first gap of `booked` at or after `start`; returns the start.
    static Cycles book(Calendar& booked, Cycles start, Cycles busy) {
        auto it = booked.upper_bound(start);
        if (it != booked.begin() && std::prev(it)->second > start) start = std::prev(it)->second;
        while (it != booked.end() && it->first < start + busy) {
            start = std::max(start, it->second);
            ++it;
        }
        const Cycles end = start + busy;
        // Merge with the intervals it touches. Extending the one before in place (the common
        // case: transfers booked back to back at the calendar's end) costs no node of the map.
        auto next = booked.lower_bound(start);
        const bool joins_next = next != booked.end() && next->first == end;
        if (next != booked.begin() && std::prev(next)->second == start) {
            const auto prev = std::prev(next);
            prev->second = joins_next ? next->second : end;
            if (joins_next) booked.erase(next);
        } else if (joins_next) {
            const Cycles hi = next->second;
            booked.emplace_hint(booked.erase(next), start, hi);
        } else {
            booked.emplace_hint(next, start, end);
        }
        return start;
    }

    BandwidthServer m_sizer;  // occupancy arithmetic only
    const ClockDomain* m_clock;
    Calendar m_all;     // every transfer
    Calendar m_demand;  // demand transfers only
    Cycles m_busy_cycles = 0;
    uint64_t m_bytes = 0;
};

}  // namespace asim
