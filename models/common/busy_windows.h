// Busy time of a set of units (the die's Cube engines) per fixed window of simulated time: the
// utilisation curve a profiler draws, from which `run` reports the level and steadiness (mean,
// spread and minimum over the windows). Memory grows with simulated time / window.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "models/common/clock_domain.h"

namespace asim {

class BusyWindows {
public:
    explicit BusyWindows(Picoseconds window) : m_window(window) {}

    Picoseconds window() const { return m_window; }
    // Adds one unit's busy interval [begin, end), split over the windows it covers.
    void add(Picoseconds begin, Picoseconds end) {
        while (begin < end) {
            const auto w = static_cast<std::size_t>(begin / m_window);
            const Picoseconds w_end = (static_cast<Picoseconds>(w) + 1) * m_window;
            const Picoseconds piece_end = std::min(end, w_end);
            if (m_busy.size() <= w) m_busy.resize(w + 1, 0);
            m_busy[w] += piece_end - begin;
            begin = piece_end;
        }
    }

    struct Summary {
        uint64_t windows = 0;
        double mean = 0, std = 0, min = 0, max = 0;
        std::vector<double> curve;  // utilisation of each window
    };
    // Utilisation of each window in [0, end): busy / (window x units). Only whole windows count,
    // unless the run is shorter than one (then the one window is [0, end)).
    Summary summarize(Picoseconds end, double units) const {
        Summary s;
        if (end <= 0 || units <= 0) return s;
        const auto whole = static_cast<std::size_t>(end / m_window);
        const std::size_t n = whole == 0 ? 1 : whole;
        const double span = static_cast<double>(whole == 0 ? end : m_window) * units;
        s.curve.resize(n);
        for (std::size_t i = 0; i < n; ++i)
            s.curve[i] = i < m_busy.size() ? static_cast<double>(m_busy[i]) / span : 0.0;
        s.windows = n;
        double sum = 0;
        s.min = s.curve[0];
        s.max = s.curve[0];
        for (double u : s.curve) {
            sum += u;
            s.min = std::min(s.min, u);
            s.max = std::max(s.max, u);
        }
        s.mean = sum / static_cast<double>(n);
        double var = 0;
        for (double u : s.curve) var += (u - s.mean) * (u - s.mean);
        s.std = std::sqrt(var / static_cast<double>(n));
        return s;
    }

private:
    Picoseconds m_window;
    std::vector<Picoseconds> m_busy;
};

}  // namespace asim
