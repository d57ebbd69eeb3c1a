// Communication against compute on one die, in simulated time: comm_busy = time with a collective
// in flight; comm_exposed = of that, time with no compute op in flight (nothing hides it);
// comm_overlap = comm_busy - comm_exposed. Shared by the detailed dispatcher and the fast die.
#pragma once

#include <cstdint>
#include <string>

#include "models/common/clock_domain.h"
#include "models/common/stats.h"

namespace asim {

class CommOverlap {
public:
    // Registers comm_busy_ps, comm_exposed_ps and comm_overlap_ps in the owner's group.
    explicit CommOverlap(const StatsGroup& stats)
        : m_busy(stats.counter("comm_busy_ps", "time with a collective in flight", "ps")),
          m_exposed(stats.counter("comm_exposed_ps",
                                  "time with a collective and no compute op in flight", "ps")),
          m_overlap(stats.counter("comm_overlap_ps",
                                  "time with a collective and a compute op in flight", "ps")) {}

    // Call at every change of what is in flight, before applying it (and once at the end).
    void account(Picoseconds now) {
        if (m_comm > 0 && now > m_since) {
            m_busy += now - m_since;
            (m_compute > 0 ? m_overlap : m_exposed) += now - m_since;
        }
        m_since = now;
    }
    void comm_started(Picoseconds now) {
        account(now);
        ++m_comm;
    }
    void comm_finished(Picoseconds now) {
        account(now);
        --m_comm;
    }
    void compute_started(Picoseconds now) {
        account(now);
        ++m_compute;
    }
    void compute_finished(Picoseconds now) {
        account(now);
        --m_compute;
    }

private:
    Counter& m_busy;
    Counter& m_exposed;
    Counter& m_overlap;
    uint32_t m_comm = 0, m_compute = 0;
    Picoseconds m_since = 0;
};

}  // namespace asim
