// The pool's shared parts, one per simulation: the devices every die's router reaches (the host
// DDR, the persistent memory, and for a die with no other dies modelled, a stand-in for another
// die's HBM), and the dies' HBM models, so that a read of die k's window lands on die k's HBM.
//
// Every device is a pair of demand-first bandwidth servers (read, write) at 1 ps granularity:
// several dies reading the DDR pool queue on it; the unloaded latency is the tier's.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <tlm>

#include "models/common/clock_domain.h"
#include "models/common/priority_bandwidth_server.h"
#include "models/common/stats.h"
#include "models/memory/tiers/dsm_params.h"

namespace asim {

class DsmPool {
  public:
    struct Device {
        PriorityBandwidthServer read;
        PriorityBandwidthServer write;
        Counter& busy_ps;
    };

    DsmPool(const DsmParams& params, StatsRegistry& stats);

    const DsmParams& params() const { return m_params; }
    // The device of a pool tier (remote_hbm: the stand-in), or null if the tier is absent.
    Device* device(Tier t) { return m_devices[static_cast<std::size_t>(t)].get(); }
    // Die `die`'s HBM, reached by other dies' reads of its window.
    void attach_hbm(uint32_t die, tlm::tlm_target_socket<>& hbm);
    tlm::tlm_fw_transport_if<>* hbm_of(uint32_t die) const {
        return die < m_hbms.size() && m_hbms[die] ? m_hbms[die]->get_base_export().operator->()
                                                  : nullptr;
    }
    const ClockDomain& clock() const { return m_clock; }
    void finalize_stats();

  private:
    DsmParams m_params;
    ClockDomain m_clock;
    std::array<std::unique_ptr<Device>, kTierCount> m_devices;
    std::vector<tlm::tlm_target_socket<>*> m_hbms;
};

}  // namespace asim
