// A supernode assembled from a platform: its network (topology, routing policy, link faults), the
// collective engine and the bridge that serves the dies' collectives over it, the memory pool's
// shared devices (DESIGN §5b), and one die per member of a trace set, detailed (Die: the whole
// chip model) or fast (FastDie: ops at measured times). Built the same way for every supernode
// preset; `ascend-sim run --trace SET` (testbenches/supernode/supernode_job.cpp) reads the set,
// builds one of these, runs the kernel and reports.
//
// Construction order is elaboration order, so it fixes SystemC names and the order of stats:
// network, collective engine, bridge, pool, then the dies in the order they are added.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "models/chip/die/die.h"
#include "models/chip/die/fast_die.h"
#include "models/common/failure_sink.h"
#include "models/common/stats.h"
#include "models/common/trace.h"
#include "models/interconnect/collectives/collective_engine.h"
#include "models/interconnect/network/flow_network.h"
#include "models/interconnect/topology/topology.h"
#include "models/memory/tiers/dsm_pool.h"
#include "platforms/network_bridge.h"
#include "platforms/platform.h"

namespace asim {

class Supernode {
public:
    // `net` is the platform's network with any run-time faults added and `topology` built from
    // it (the caller checks the trace set against it first); `net` must outlive this.
    Supernode(const Platform& platform, const NetworkParams& net,
              std::unique_ptr<const Topology> topology, StatsRegistry& stats,
              FailureSink& failures);

    // Die `die` as a detailed chip model replaying `trace` (which must outlive the run). With
    // `timeline`, its ops go to the group named after it and the ledger keeps dependencies.
    Die& add_detailed(uint32_t die, const DieParams& params, trace::TraceReader& trace,
                      Picoseconds util_window_ps, Timeline* timeline);
    // Die `die` as a fast die running `ops` at their measured times.
    FastDie& add_fast(uint32_t die, std::vector<FastOp> ops, bool keep_deps);

    const Topology& topology() const { return *m_topology; }
    FlowNetwork& network() { return m_network; }
    const FlowNetwork& network() const { return m_network; }
    const NetworkBridge& bridge() const { return m_bridge; }
    DsmPool* pool() { return m_pool.get(); }

    // The members in the order they were added: each is detailed or fast.
    std::size_t members() const { return m_members.size(); }
    uint32_t die_of(std::size_t member) const { return m_members[member].die; }
    Die* detailed(std::size_t member) const { return m_members[member].detailed.get(); }
    FastDie* fast(std::size_t member) const { return m_members[member].fast.get(); }
    bool finished(std::size_t member) const;
    uint64_t ops_completed(std::size_t member) const;
    const OpLedger& ledger(std::size_t member) const;
    // Calls `report(member, ops done)` each time a member completes an op.
    void set_progress(const std::function<void(std::size_t, uint64_t)>& report);
    // The members that have not finished, one line each ("\n  dieN: K ops completed"); empty when
    // every member finished.
    std::string unfinished() const;
    // After the run: every member's and the pool's closing statistics.
    void finalize_stats();

private:
    struct Member {
        uint32_t die;
        std::unique_ptr<Die> detailed;
        std::unique_ptr<FastDie> fast;
    };
    StatsRegistry& m_stats;
    FailureSink& m_failures;
    std::unique_ptr<const Topology> m_topology;
    FlowNetwork m_network;
    CollectiveEngine m_engine;
    NetworkBridge m_bridge;
    std::unique_ptr<DsmPool> m_pool;  // the pool's shared devices, when the platform has a pool
    std::vector<Member> m_members;
};

}  // namespace asim
