// What the die needs of an HBM model, whatever its fidelity: the target socket the L2 binds to,
// the totals the summary reports, and the load monitor it feeds.
#pragma once

#include <cstdint>

#include <tlm>

#include "models/memory/interfaces/hbm_load_monitor.h"

namespace asim {

class HbmModel {
public:
    virtual ~HbmModel() = default;
    virtual tlm::tlm_target_socket<>& l2_target() = 0;
    virtual uint64_t read_bytes() const = 0;
    virtual uint64_t write_bytes() const = 0;
    virtual void finalize_stats() = 0;
    // Whether b_transport waits (advances the caller's thread in time) instead of returning a
    // computed delay: initiators then issue from several threads to keep requests in flight.
    virtual bool waits() const { return false; }
    // The H-JSD's throttle input (hbm_load_monitor.h): every access this HBM serves, whoever
    // sent it (its own die's L2, another die's pool read, a staging or migration copy), is
    // recorded when it completes. Accesses the die's L2 sends to a pool tier never reach it.
    void set_load_monitor(HbmLoadMonitor* monitor) { m_load_monitor = monitor; }

protected:
    // An access of `bytes` served, complete at `done` (the implementations call it from serve).
    void delivered(Picoseconds done, uint64_t bytes) {
        if (m_load_monitor) m_load_monitor->record(done, bytes);
    }

private:
    HbmLoadMonitor* m_load_monitor = nullptr;
};

}  // namespace asim
