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

    void record(Picoseconds when, uint64_t bytes) {
        m_events.emplace_back(when, bytes);
        m_bytes += bytes;
    }

    // Fraction of peak used by requests made in (now - window, now].
    double utilisation(Picoseconds now) {
        while (!m_events.empty() && m_events.front().first + m_window_ps <= now) {
            m_bytes -= m_events.front().second;
            m_events.pop_front();
        }
        return static_cast<double>(m_bytes) / (m_peak_bytes_per_ps * static_cast<double>(m_window_ps));
    }

    Picoseconds window_ps() const { return m_window_ps; }

private:
    double m_peak_bytes_per_ps;
    Picoseconds m_window_ps;
    std::deque<std::pair<Picoseconds, uint64_t>> m_events;
    uint64_t m_bytes = 0;
};

}  // namespace asim
