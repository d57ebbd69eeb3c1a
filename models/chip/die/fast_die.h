// A die at the `fast` fidelity, for supernode replays of thousands of dies: each compute op takes
// a duration given up front (the supernode job measures it once per distinct op on the detailed
// die model: testbenches/supernode/op_time_table.h); compute ops run one after another in trace
// order once their dependencies are done; collectives go to the CollectiveService as on a
// detailed die, so they overlap the compute that does not depend on them.
//
// Approximated against the detailed die: independent compute ops do not overlap each other (the
// detailed dispatcher runs up to 16 at once on shared engines), and an op's duration does not
// depend on what ran before it (L2 contents, H-JSD prefetches). An SC_METHOD with no stack, so
// 15,488 of them fit in memory.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <unordered_set>
#include <vector>

#include <systemc>

#include "models/chip/die/comm_overlap.h"
#include "models/chip/die/op_dispatcher.h"
#include "models/common/failure_sink.h"
#include "models/common/op_ledger.h"
#include "models/common/stats.h"
#include "models/common/trace.h"

namespace asim {

struct FastOp {
    trace::Op op;
    Picoseconds duration = 0;  // compute ops; ignored for collectives
    // What the op did in memory when its duration was measured (ops.csv): HBM bytes and demand
    // L2 hits and misses.
    uint64_t hbm_read_bytes = 0, hbm_write_bytes = 0, l2_hits = 0, l2_misses = 0;
};

class FastDie : public sc_core::sc_module {
public:
    // `keep_deps`: the ledger keeps every op's dependencies (the timeline's arrows).
    FastDie(sc_core::sc_module_name name, std::vector<FastOp> ops, StatsRegistry& stats,
            FailureSink& failures, bool keep_deps = false);

    void set_collective_service(CollectiveService* service) { m_collectives = service; }
    // Called with the count of ops done each time one completes (a progress line).
    void set_progress(std::function<void(uint64_t)> progress) { m_progress = std::move(progress); }
    bool finished() const { return m_next == m_ops.size() && m_in_flight == 0; }
    uint64_t ops_completed() const { return m_done.value(); }
    Picoseconds end_time_ps() const { return m_end; }
    double flops() const { return m_flops; }
    void finalize_stats() { m_overlap.account(ClockDomain::to_ps(sc_core::sc_time_stamp())); }
    // Every op with its start and end, and the traffic its FastOp gives (ops.csv).
    const OpLedger& ledger() const { return m_ledger; }

private:
    SC_HAS_PROCESS(FastDie);
    void step();
    void complete(std::size_t index);

    std::vector<FastOp> m_ops;
    FailureSink& m_failures;
    CollectiveService* m_collectives = nullptr;
    std::function<void(uint64_t)> m_progress;
    std::size_t m_next = 0;  // next op to dispatch, in trace order
    std::unordered_set<uint64_t> m_completed;
    std::deque<std::pair<Picoseconds, std::size_t>> m_compute_ends;  // in order (compute is serial)
    Picoseconds m_compute_free = 0;
    Picoseconds m_end = 0;
    uint32_t m_in_flight = 0;
    double m_flops = 0;
    std::vector<Picoseconds> m_started;
    OpLedger m_ledger;
    sc_core::sc_event m_wake;
    CommOverlap m_overlap;
    Counter& m_done;
    std::vector<OpClassStats> m_class_stats;
};

}  // namespace asim
