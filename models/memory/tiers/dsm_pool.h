// The pool's shared parts, one per simulation: the devices the dies' routers reach (each node's
// host DDR and persistent memory, and for a die with no other dies modelled, a stand-in for another
// die's HBM), and the dies' HBM models and pool ports, so that a read of die k's window lands on
// die k's HBM and leaves through die k's port.
//
// Every device is a pair of demand-first bandwidth servers (read, write) at 1 ps granularity:
// several dies reading the DDR pool queue on it; the unloaded latency is the tier's. Each node's
// tiering between its own tiers (dsm.warm: pmem's warm blocks in DDR) lives here too.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <tlm>

#include "models/common/calendar_server.h"
#include "models/common/clock_domain.h"
#include "models/common/priority_bandwidth_server.h"
#include "models/common/stats.h"
#include "models/memory/tiers/dsm_params.h"
#include "models/memory/tiers/node_tiering.h"
#include "models/memory/tiers/pool_device.h"

namespace asim {

// The supernode's network as the pool's traffic between dies sees it (the supernode run's
// NetworkBridge): remote_hbm data crosses the same links as the collectives.
class PoolFabric {
public:
    virtual ~PoolFabric() = default;
    // `bytes` leave die `src` for die `dst` at the kernel's time: read data (the owner's reply)
    // or written data, demand or background. Each (pair, direction, class) is a stream: they
    // share the links max-min fairly with each other and with the collectives' transfers.
    // Returns when the last of them has left `src` at the share the links give them now; the
    // flight time is in the tier's latency.
    virtual Picoseconds carry(uint32_t src, uint32_t dst, uint64_t bytes, bool write,
                              bool background) = 0;
};

class DsmPool {
public:
    // Several dies book a device each at their own (future-dated) times: calendar servers, so
    // an earlier transfer is not held behind one booked for later (calendar_server.h). Demand
    // before prefetch is arbitrated at the dies' ports, not here.
    using Device = PoolDevice;

    DsmPool(const DsmParams& params, StatsRegistry& stats);

    const DsmParams& params() const { return m_params; }
    // The device of a pool tier that die `die` reaches: host_ddr and pmem are per node (the
    // node's CPUs', `dies_per_node` dies each); remote_hbm's stand-in is one per pool. Null if
    // the platform lacks the tier.
    Device* device(Tier t, uint32_t die);
    // The node tiering of die `die`'s node when `t` is the tier it moves warm blocks out of
    // (dsm.warm.from), else null.
    NodeTiering* node_tiering(Tier t, uint32_t die);
    // Die `die`'s HBM, reached by other dies' reads of its window; `unloaded_latency_ps` is what
    // its model adds to an idle access (the tier's latency already counts the memory's).
    void attach_hbm(uint32_t die, tlm::tlm_target_socket<>& hbm, int64_t unloaded_latency_ps);
    // Die `die`'s pool port out of the die (its router's): reads of its HBM by others use it.
    void attach_egress(uint32_t die, CalendarServer& egress);
    struct Owner {
        tlm::tlm_fw_transport_if<>* hbm = nullptr;
        int64_t hbm_latency_ps = 0;
        CalendarServer* egress = nullptr;  // null: the owner has no router in this run
    };
    Owner owner(uint32_t die) const;
    const ClockDomain& clock() const { return m_clock; }
    // The network remote_hbm traffic crosses besides the ports (null: the ports alone).
    void set_fabric(PoolFabric* fabric) { m_fabric = m_params.port.network ? fabric : nullptr; }
    PoolFabric* fabric() const { return m_fabric; }
    void finalize_stats();

private:
    struct Member {
        tlm::tlm_target_socket<>* hbm = nullptr;
        int64_t hbm_latency_ps = 0;
        CalendarServer* egress = nullptr;
    };
    uint32_t node_of(uint32_t die) const;

    DsmParams m_params;
    StatsRegistry& m_stats;
    ClockDomain m_clock;
    std::map<std::pair<Tier, uint32_t>, std::unique_ptr<Device>> m_devices;  // (tier, node)
    std::map<uint32_t, std::unique_ptr<NodeTiering>> m_node_tiering;         // by node
    std::vector<Member> m_members;
    PoolFabric* m_fabric = nullptr;
};

}  // namespace asim
