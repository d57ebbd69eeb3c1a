// What the die needs of an HBM model, whatever its fidelity: the target socket the L2 binds to
// and the totals the summary reports.
#pragma once

#include <cstdint>

#include <tlm>

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
};

}  // namespace asim
