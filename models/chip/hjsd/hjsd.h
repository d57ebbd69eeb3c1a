// The H-JSD (hardware joint data-flow scheduler) in the chip: the TLM plumbing around a decision
// engine (scheduler_engine.h), the C++ reference core (`impl: tlm`) or the Verilated RTL block
// (`impl: rtl`), which decide cycle for cycle the same. It takes prefetch candidates (the weight
// tensors of upcoming ops, from the op dispatcher's lookahead), op_start from the dispatcher,
// credit returns from the L2 (prefetched bytes consumed or evicted) and a throttle from the HBM
// load monitor, and issues CMO prefetch requests into the L2 weight partition through its SDMA port
// (`l2_out`).
//
// Timing: the core is stepped once per cycle of the die clock while it can make progress (issue
// or drop); when it can only wait for an input (op_start, a credit, the throttle dropping, a free
// SDMA slot) the thread sleeps until that input changes, so an idle or blocked H-JSD costs no
// kernel events. Inputs that arrive while it sleeps are presented one per cycle, in order, as the
// RTL block would see them. The RTL engine settles its pins in delta cycles; inputs that arrive
// during those deltas are seen before the thread sleeps, so both engines step the same cycles.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "models/chip/hjsd/prefetch_scheduler_core.h"
#include "models/chip/hjsd/scheduler_engine.h"
#include "models/common/clock_domain.h"
#include "models/common/failure_sink.h"
#include "models/common/op_ledger.h"
#include "models/common/payload.h"
#include "models/common/stats.h"
#include "models/memory/interfaces/hbm_load_monitor.h"
#include "models/memory/l2/l2_cache.h"
#include "models/memory/tiers/tier_router.h"

namespace asim {

class ConfigNode;

struct HjsdParams {
    hjsd::Registers registers;         // enable, prefetch_depth, chunk, credit limits
    int64_t horizon_ps = 0;            // the horizon register as a time (0: no bound); the chip
                                       // writes it in its clock's cycles
    bool pool_sources_only = false;    // `sources: pool`: only weights in a pool tier are offered
    uint32_t queue_depth = 16;         // candidate queue entries
    uint32_t sdma_outstanding = 8;     // prefetch transactions in flight before the port stalls
    double throttle_threshold = 0.85;  // HBM utilisation above which prefetch is held back
    int64_t throttle_window_ps = 1'000'000;
    std::string impl = "tlm";   // decision engine by name (scheduler_engine.h)
    ParamValues engine_params;  // the engine's own

    std::vector<std::pair<std::string, std::string>> validate() const;
};

// Reads `die.hjsd`. `partitions` are the L2's (name, bytes) in partition order; credits default
// to, and may not exceed, the partition sizes.
HjsdParams parse_hjsd_params(const ConfigNode& node,
                             const std::vector<std::pair<std::string, uint64_t>>& partitions);

class Hjsd : public sc_core::sc_module, public L2PrefetchListener {
public:
    tlm_utils::simple_initiator_socket<Hjsd> l2_out;

    Hjsd(sc_core::sc_module_name name, const HjsdParams& params, uint32_t partitions,
         const ClockDomain& clock, HbmLoadMonitor& monitor, StatsRegistry& stats,
         FailureSink& failures);

    // From the op dispatcher. `est`: the op's estimated start, in cycles of this die's clock on
    // the dispatcher's running estimate (kept to hjsd::kEstBits bits), for the time horizon.
    void add_candidate(const hjsd::Candidate& c);
    void op_start(uint64_t op_seq, uint64_t est);
    // From the L2.
    void prefetch_released(std::size_t partition, uint64_t bytes) override;

    hjsd::Counters counters() const { return m_engine->counters(); }
    void finalize_stats();
    // The memory below waits in b_transport (the JEDEC HBM): prefetches are then issued from
    // `sdma_outstanding` SDMA lanes (threads), so they are in flight together instead of one
    // after another. Call during elaboration.
    void issue_from_lanes();
    // The second prefetch level (DESIGN §5b): requests of credit pool `pool` go to `target` (the
    // memory pool's staging port), which copies them into local HBM, instead of into the L2.
    void set_staging_target(StagingPort& target, uint32_t pool) {
        m_stage_target = &target;
        m_staging_pool = pool;
    }
    // Tags every prefetch with `ledger` (op_ledger.h): its traffic counts for the op it fetches
    // for.
    void set_ledger(OpLedger* ledger) { m_ledger = ledger; }

private:
    SC_HAS_PROCESS(Hjsd);
    void run();
    void issue(const hjsd::Request& r);
    Picoseconds transport(const hjsd::Request& r);  // the L2 transaction; returns its completion
    void sdma_lane();
    void wake() {
        ++m_input_generation;
        m_input.notify(sc_core::SC_ZERO_TIME);
    }

    HjsdParams m_params;
    std::unique_ptr<hjsd::SchedulerEngine> m_engine;
    const ClockDomain& m_clock;
    HbmLoadMonitor& m_monitor;
    FailureSink& m_failures;
    std::deque<hjsd::Candidate> m_candidates;
    std::deque<std::pair<uint64_t, uint64_t>> m_op_starts;  // op_seq, estimated start
    // Credit returns not yet presented, summed per partition (an accumulator in front of the
    // block's credit port: the L2 releases credit line by line, the block takes one return per
    // cycle).
    std::array<uint64_t, hjsd::kMaxPartitions> m_pending_credit{};
    uint32_t m_next_credit_partition = 0;
    std::priority_queue<Picoseconds, std::vector<Picoseconds>, std::greater<>>
        m_in_flight;  // completion times
    bool m_lanes = false;
    std::deque<hjsd::Request> m_lane_queue;  // issued, waiting for a lane
    sc_core::sc_event m_lane_work;
    uint32_t m_in_lanes = 0;  // issued, not yet returned from a lane (completion unknown)
    sc_core::sc_event m_input;
    uint64_t m_input_generation =
        0;  // bumped by every input, to see those that came while the engine settled
    PayloadPool m_pool;
    StagingPort* m_stage_target = nullptr;
    uint32_t m_staging_pool = ~uint32_t{0};
    OpLedger* m_ledger = nullptr;
    struct StatRefs {
        Counter& issued_chunks;
        Counter& issued_bytes;
        Counter& late_drops;
        Counter& oversize_drops;
        Counter& credit_stalls;
        Counter& throttle_stalls;
        Counter& port_stalls;
        Counter& candidates;
        Counter& active_cycles;
    } m_stats;
};

}  // namespace asim
