// Measures how busy HBM is: bytes HBM delivered in a sliding window, as a fraction of what the
// peak bandwidth could move in that window, as a controller's bus-utilisation counter does. The
// L2 records every HBM access when it completes (its data delivered, its write taken); the H-JSD
// raises its throttle when the fraction is above a threshold. Arithmetic only.
//
// Delivered, not requested: requests come in bursts (decode attention asks for its KV cache at
// once), so bytes requested per window ran to over twice the peak while a queue built up, and a
// threshold near 1 could not switch the throttle off. Delivered bytes stay within what the device
// moves (an access's bytes count at its completion, so a window can hold slightly more than its
// share of accesses that straddle its start).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "models/common/clock_domain.h"

namespace asim {

class HbmLoadMonitor {
public:
    HbmLoadMonitor(double peak_bytes_per_s, Picoseconds window_ps)
        : m_peak_bytes_per_ps(peak_bytes_per_s * 1e-12), m_window_ps(window_ps) {}

    // An access of `bytes` that completes at `done` (at or after the kernel's time). Also forgets
    // what has left the window at the kernel's time, as utilisation() would: its caller asks at
    // the kernel's time, which never goes back, so no answer changes, and the record holds one
    // window of accesses instead of every access since the H-JSD last asked (it asks only when
    // its inputs change: a one-op GEMM 16384^3 kept 31 M records, 500 MB).
    void record(Picoseconds done, uint64_t bytes) {
        advance(ClockDomain::to_ps(sc_core::sc_time_stamp()));
        m_pending.emplace(done, bytes);
    }

    // Fraction of peak delivered in (now - window, now]. `now` never decreases from one call to
    // the next and is at least the kernel's time of every earlier record().
    double utilisation(Picoseconds now) {
        advance(now);
        return static_cast<double>(m_bytes) /
               (m_peak_bytes_per_ps * static_cast<double>(m_window_ps));
    }

    Picoseconds window_ps() const { return m_window_ps; }

private:
    using Record = std::pair<Picoseconds, uint64_t>;  // completion, bytes
    // Moves the accesses completed by `now` into the window (in completion order) and forgets
    // those that have left it.
    void advance(Picoseconds now) {
        while (!m_pending.empty() && m_pending.top().first <= now) {
            m_window.push_back(m_pending.top());
            m_bytes += m_pending.top().second;
            m_pending.pop();
        }
        while (!m_window.empty() && m_window.front().first + m_window_ps <= now) {
            m_bytes -= m_window.front().second;
            m_window.pop_front();
        }
    }

    double m_peak_bytes_per_ps;
    Picoseconds m_window_ps;
    std::priority_queue<Record, std::vector<Record>, std::greater<Record>> m_pending;
    std::deque<Record> m_window;
    uint64_t m_bytes = 0;  // in m_window
};

}  // namespace asim
