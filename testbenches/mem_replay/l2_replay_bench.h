// Replays memory records into the die's L2 (with the die's HBM behind it) under the SystemC
// kernel, for `mem-replay --target l2` and `figures l2`.
//
// Timing: a record's cycle counts cycles of the L2's clock (`die.l2.clock`) from the start of
// its phase. Records enter in order, at most `issue_cap` per cycle (0: no cap); a record whose
// cycle has passed enters at the first cycle with room. The driver thread waits only when the
// next record's cycle is in the future, then issues a timing-only LT read or write of
// `request_bytes`; the L2 returns the completion in the delay, so acceptance is the issue itself.
// Behind an HBM that waits (`jedec`), the L2 call returns only when its fills are done, so each
// record is issued from a lane (a thread) of its own, at most `die.l2.mshrs` in flight; with all
// of them busy the next record enters when one frees. Completion = return time + delay.
// Latencies are in whole L2 cycles (completion rounded up to a cycle boundary).
//
// Phases run back to back on the same L2 and HBM (warm-up, then measured points): each starts
// on the cycle after every earlier request completed, so no phase queues behind another.
#pragma once

#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <nlohmann/json.hpp>
#include <systemc>

#include "models/chip/die/die.h"
#include "models/common/clock_domain.h"
#include "models/common/payload.h"
#include "models/common/stats.h"
#include "models/memory/memory_system.h"
#include "testbenches/mem_replay/mem_trace.h"
#include "testbenches/mem_replay/replay_engine.h"

namespace asim {

struct L2ReplayPhase {
    // Records in order; false at the end, or false with `error` set on bad input (no exception:
    // this runs on a SystemC thread's stack, see MemTraceReader::read).
    std::function<bool(MemRecord&, std::string& error)> next;
    std::function<std::string()> where;  // names the record just read, for errors
    uint64_t issue_cap = 0;
    uint64_t request_bytes = 64;
    StreamClass stream = StreamClass::kGeneral;
};

struct L2PhaseResult {
    uint64_t requests = 0, reads = 0, writes = 0, bytes = 0;
    uint64_t total_cycles = 0;  // last completion, from the phase's start
    LatencyHistogram read_from_trace, read_from_accept;
    CompletionTimeline completions;
    uint64_t l2_hits = 0, l2_misses = 0;
    uint64_t hbm_read_bytes = 0, hbm_write_bytes = 0;
};

class L2ReplayBench : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<L2ReplayBench> l2_out;

    // The die's L2 and HBM; with a NoC (`die.noc`), the requests cross it as from an average core.
    L2ReplayBench(sc_core::sc_module_name name, const DieParams& die, StatsRegistry& stats,
                  std::vector<L2ReplayPhase> phases);

    // Runs every phase to completion. Throws what a phase threw (InputError for a bad record).
    void run();

    const std::vector<L2PhaseResult>& results() const { return m_results; }
    const L2Cache& l2() const { return *m_memory.l2; }
    const HbmModel& hbm() const { return *m_memory.hbm; }
    const ClockDomain& clock() const { return m_clock; }
    void finalize_stats();

private:
    // One record on its way into the L2.
    struct Request {
        MemRecord rec;
        Cycles issue = 0, wanted = 0, base = 0;  // entry, trace and phase-start cycles
        const L2ReplayPhase* phase = nullptr;
        L2PhaseResult* result = nullptr;
    };
    // A thread that issues one request at a time, for a memory that waits.
    struct Lane {
        sc_core::sc_event go;
        Request request;
        bool busy = false;
    };
    void drive();
    void run_phase(const L2ReplayPhase& phase, L2PhaseResult& r);
    void transact(const Request& request);  // issues it and records its completion
    void lane(uint32_t index);

    L2AndHbm m_memory;
    ClockDomain m_clock;
    std::vector<L2ReplayPhase> m_phases;
    std::vector<L2PhaseResult> m_results;
    PayloadPool m_pool;
    SliceDistances m_route;  // an average core's distances to the slices (die.noc); empty: none
    Picoseconds m_last_done = 0;
    std::deque<Lane> m_lanes;  // a deque: lanes keep their address as more are added
    std::vector<uint32_t> m_idle_lanes;
    uint32_t m_busy_lanes = 0;
    sc_core::sc_event m_lane_freed;
    std::exception_ptr m_error;
    std::string m_input_error;  // bad input found while replaying: run() throws it as InputError
};

}  // namespace asim

namespace asim {

// The summary block of stats.json for a replayed phase: the HBM replay's keys where they apply
// (latencies in L2 cycles; acceptance = issue) and the L2's hit rate. `peak_bytes_per_s` is
// what the run could at most move: the slices' total, or less when the issue cap binds.
nlohmann::json l2_replay_summary(const L2PhaseResult& r, uint64_t clock_hz,
                                 double peak_bytes_per_s);

}  // namespace asim
