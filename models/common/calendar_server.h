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

#include "models/common/bandwidth_server.h"
#include "models/common/clock_domain.h"
#include "models/common/sliding_vector.h"

namespace asim {

class CalendarServer {
public:
    CalendarServer(const ClockDomain* clock, double bytes_per_cycle)
        : m_sizer(clock, bytes_per_cycle), m_clock(clock) {}

    // Demand first (DESIGN §5), non-preemptive as in PriorityBandwidthServer: a demand transfer
    // takes the first gap among demand transfers, unless a background transfer (prefetch,
    // staging, migration) is in service at that start: then the first gap after it (the check is
    // made once, as the priority server makes it at the arrival). It then also occupies the
    // background calendar, from that start on. A background transfer takes the first gap among
    // all transfers. Approximation (as there): background transfers already granted are not
    // pushed back by later demand; overlap_cycles() counts the demand time that ran over them.
    BandwidthServer::Grant reserve(Picoseconds arrival, uint64_t bytes, bool background = false) {
        const Cycles busy = m_sizer.occupancy_cycles(bytes);
        const Cycles at = m_clock->ps_to_cycles_ceil(arrival);
        Cycles start;
        if (background) {
            start = m_all.book(at, busy);
            m_background.add(start, start + busy);
        } else {
            start = m_demand.first_fit(at, busy);
            if (const Cycles end = m_background.in_service_end(start))
                start = m_demand.first_fit(end, busy);
            m_demand.book_at(start, busy);
            m_overlap_cycles += m_background.overlap(start, start + busy);
            m_all.book(start, busy);
        }
        m_busy_cycles += busy;
        m_bytes += bytes;
        return {m_clock->cycles_to_ps(start), m_clock->cycles_to_ps(start + busy)};
    }

    // Drops intervals that ended before `t` (nothing can be booked before the kernel's time).
    void forget_before(Picoseconds t) {
        const Cycles c = m_clock->ps_to_cycles_floor(t);
        m_all.forget_before(c);
        m_demand.forget_before(c);
        m_background.forget_before(c);
    }

    Cycles busy_cycles() const { return m_busy_cycles; }
    // Demand time booked over background transfers already granted (see reserve()), in cycles.
    Cycles overlap_cycles() const { return m_overlap_cycles; }
    Picoseconds overlap_ps() const { return m_clock->cycles_to_ps(m_overlap_cycles); }
    uint64_t bytes() const { return m_bytes; }
    std::size_t intervals() const { return m_all.size() + m_demand.size() + m_background.size(); }

private:
    struct Interval {
        Cycles start, end;
    };
    // The index of the first of `spans` (in start order) starting after `c`; the end first,
    // where bookings land.
    static std::size_t first_after(const SlidingVector<Interval>& spans, Cycles c) {
        if (spans.empty() || spans.back().start <= c) return spans.size();
        return static_cast<std::size_t>(
            std::upper_bound(spans.begin(), spans.end(), c,
                             [](Cycles v, const Interval& i) { return v < i.start; }) -
            spans.begin());
    }

    // Booked intervals [start, end) in start order, disjoint and not touching, in a flat array
    // that drops the forgotten ones from its front (SlidingVector). Bookings land at the end
    // nearly always (99.9 % of the 771 k of a Llama-3-70B decode layer reading its weights from
    // the pool), so a flat array does in a push or an in-place extension what a std::map did with
    // a node allocation and a rebalance each.
    class Calendar {
    public:
        std::size_t size() const { return m_booked.size(); }
        // Books `busy` cycles in the first gap at or after `start`; returns the start.
        Cycles book(Cycles start, Cycles busy) {
            start = first_fit(start, busy);
            book_at(start, busy);
            return start;
        }
        // The start of the first gap at or after `start` that holds `busy` cycles.
        Cycles first_fit(Cycles start, Cycles busy) const {
            std::size_t i = first_after(start);  // the first interval starting after `start`
            if (i != 0 && m_booked[i - 1].end > start) start = m_booked[i - 1].end;
            while (i != m_booked.size() && m_booked[i].start < start + busy) {
                start = std::max(start, m_booked[i].end);
                ++i;
            }
            return start;
        }
        // Books [start, start + busy), a gap (first_fit's answer).
        void book_at(Cycles start, Cycles busy) {
            const Cycles end = start + busy;
            // Merge with the intervals it touches: extending the one before in place is the
            // common case (transfers booked back to back at the calendar's end).
            const std::size_t next = first_from(start);
            const bool joins_next = next != m_booked.size() && m_booked[next].start == end;
            if (next != 0 && m_booked[next - 1].end == start) {
                m_booked[next - 1].end = joins_next ? m_booked[next].end : end;
                if (joins_next) m_booked.erase(next);
            } else if (joins_next) {
                m_booked[next].start = start;
            } else if (next == m_booked.size()) {
                Interval& added = m_booked.emplace_back();  // after a gap, at the end
                added.start = start;
                added.end = end;
            } else if (m_booked[next].start != start) {
                m_booked.insert(next, {start, end});
            }
        }
        // Drops the intervals that end before cycle `c`.
        void forget_before(Cycles c) {
            while (!m_booked.empty() && m_booked.front().end < c) m_booked.pop_front();
        }

    private:
        // The index of the first interval starting after `c` (upper bound), and at or after `c`
        // (lower bound); the end first, where bookings land.
        std::size_t first_after(Cycles c) const { return CalendarServer::first_after(m_booked, c); }
        std::size_t first_from(Cycles c) const {
            if (m_booked.empty() || m_booked.back().start < c) return m_booked.size();
            return static_cast<std::size_t>(
                std::lower_bound(m_booked.begin(), m_booked.end(), c,
                                 [](const Interval& i, Cycles v) { return i.start < v; }) -
                m_booked.begin());
        }

        SlidingVector<Interval> m_booked{64};
    };

    // The background transfers, each its own interval (not merged: a demand waits for the one
    // in service, not for a run of them booked back to back), in start order. They are disjoint:
    // each took a gap of the calendar of all transfers.
    class Transfers {
    public:
        std::size_t size() const { return m_spans.size(); }
        void add(Cycles start, Cycles end) {
            if (m_spans.empty() || m_spans.back().start <= start) {
                Interval& added = m_spans.emplace_back();
                added.start = start;
                added.end = end;
                return;
            }
            m_spans.insert(first_after(start), {start, end});
        }
        // The end of the transfer in service at cycle `c` (start <= c < end); 0 when none is.
        Cycles in_service_end(Cycles c) const {
            if (m_spans.empty() || m_spans.back().end <= c) return 0;  // the latest ends by `c`
            const std::size_t i = first_after(c);
            return i != 0 && c < m_spans[i - 1].end ? m_spans[i - 1].end : 0;
        }
        // Cycles of [from, to) that transfers occupy.
        Cycles overlap(Cycles from, Cycles to) const {
            return occupied_within(m_spans.begin(), m_spans.end(), from, to);
        }
        void forget_before(Cycles c) {
            while (!m_spans.empty() && m_spans.front().end < c) m_spans.pop_front();
        }

    private:
        std::size_t first_after(Cycles c) const { return CalendarServer::first_after(m_spans, c); }
        SlidingVector<Interval> m_spans{64};
    };

    BandwidthServer m_sizer;  // occupancy arithmetic only
    const ClockDomain* m_clock;
    Calendar m_all;     // every transfer
    Calendar m_demand;  // demand transfers only
    Transfers m_background;
    Cycles m_busy_cycles = 0;
    Cycles m_overlap_cycles = 0;
    uint64_t m_bytes = 0;
};

}  // namespace asim
