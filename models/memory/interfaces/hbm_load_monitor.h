// Measures how busy HBM is: bytes requested from HBM in a sliding window, as a fraction of what
// the peak bandwidth could move in that window. The L2 records every HBM access it makes; the
// H-JSD raises its throttle when the fraction is above a threshold. Arithmetic only.
#pragma once

#include <cstdint>
#include <deque>
#include <utility>

#include "models/common/clock_domain.h"

namespace asim {

class HbmLoadMonitor {
public:
    HbmLoadMonitor(double peak_bytes_per_s, Picoseconds window_ps)
        : m_peak_bytes_per_ps(peak_bytes_per_s * 1e-12), m_window_ps(window_ps) {}

    // Also forgets what has left the window at the kernel's time, as utilisation() would: its
    // caller asks at the kernel's time, which never goes back, so no answer changes, and the
    // record holds one window of accesses instead of every access since the H-JSD last asked
    // (it asks only when its inputs change: a one-op GEMM 16384^3 kept 31 M records, 500 MB).
    void record(Picoseconds when, uint64_t bytes) {
        forget_before(ClockDomain::to_ps(sc_core::sc_time_stamp()));
        m_events.emplace_back(when, bytes);
        m_bytes += bytes;
    }

    // Fraction of peak used by requests made in (now - window, now]. `now` never decreases from
    // one call to the next and is at least the kernel's time of every earlier record().
    double utilisation(Picoseconds now) {
        forget_before(now);
        return static_cast<double>(m_bytes) /
               (m_peak_bytes_per_ps * static_cast<double>(m_window_ps));
    }

    Picoseconds window_ps() const { return m_window_ps; }

private:
    void forget_before(Picoseconds now) {
        while (!m_events.empty() && m_events.front().first + m_window_ps <= now) {
            m_bytes -= m_events.front().second;
            m_events.pop_front();
        }
    }

    double m_peak_bytes_per_ps;
    Picoseconds m_window_ps;
    std::deque<std::pair<Picoseconds, uint64_t>> m_events;
    uint64_t m_bytes = 0;
};

}  // namespace asim
