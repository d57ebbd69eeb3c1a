// The Verilated RTL prefetch scheduler as an H-JSD engine: a transactor that turns the engine
// calls (one evaluate() and one clock() per cycle, models/chip/hjsd/scheduler_engine.h) into pin
// activity on the Verilated SystemC model of rtl/prefetch_scheduler/prefetch_scheduler.sv, so the
// RTL can replace the C++ core in the chip and in the co-simulation bench.
//
// Verilator's headers stay behind the pimpl: this header needs only SystemC.
//
// Pin timing: evaluate() writes the input signals (clock low) and waits two delta cycles, one for
// the model's evaluation and one for its outputs to update, then reads the outputs; clock()
// raises the clock, and the model commits the edge in the next delta cycle. Simulated time never
// advances inside the transactor. reset() (called by the first evaluate() if not before) holds
// the synchronous reset for one edge with the registers applied, so credits start at their limits.
//
// The model carries the contract's checker (prefetch_scheduler_checker.sv, bound to the block) with
// its assertions compiled in. Verilator prints a failing one ("%Error: ... Assertion failed in
// ...u_checker.<property>") when the edge is taken; the next evaluate() (or check_assertions())
// throws SimulationError, so the run fails.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "models/chip/hjsd/scheduler_engine.h"

namespace asim::rtl {

// The parameters the RTL library is built with (the defaults of prefetch_scheduler.sv).
struct RtlBuild {
    static constexpr uint32_t kMaxDepth = 63;
    static constexpr uint32_t kQueueDepth = 16;
    static constexpr uint32_t kAddrBits = 64;
    static constexpr uint32_t kLenBits = 40;
    static constexpr uint32_t kSeqBits = 32;
    static constexpr uint32_t kPartitions = 4;
    static constexpr uint32_t kCreditBits = 40;
    static constexpr uint32_t kTierBits = 2;
    static constexpr uint32_t kEstBits = 32;  // = hjsd::kEstBits
};

enum class RtlVariant {
    kGood,
    kInjectedBug,  // built with ASIM_HJSD_INJECT_BUG (CMake option ASIM_RTL_BUG_VARIANT)
};

// Whether this build carries the bug-injected variant.
bool has_bug_variant();

// Whether this build carries the contract's checker with its assertions (CMake
// ASIM_RTL_ASSERTIONS).
bool has_assertions();

// Switches the bound checker's assertions on or off for every model in the process (on by
// default; the co-simulation's --no-assertions, to judge the RTL by the scoreboard alone).
void set_assertions(bool on);
// What Verilator's runtime reported as fatal, if anything ("" otherwise): e.g. its VCD writer
// failing to write the waveforms (a full disk). The runtime's default handler flushes every
// trace file from inside the failing flush and deadlocks; this build keeps the message instead
// (VL_USER_FATAL), the evaluation that follows stops with it, and the cosim bench checks it once
// the waveforms are closed.
std::string verilator_fatal_message();

// Problems (register or parameter, message) that keep these settings off the RTL as built.
std::vector<std::pair<std::string, std::string>> check_rtl_fit(const hjsd::Registers& registers,
                                                               uint32_t queue_depth,
                                                               uint32_t partitions);
// The same for one candidate / credit return (fields wider than the ports).
bool candidate_fits(const hjsd::Candidate& c);

class PrefetchSchedulerRtl : public sc_core::sc_module, public hjsd::SchedulerEngine {
public:
    // `waves`: a VCD file to write, or empty.
    PrefetchSchedulerRtl(sc_core::sc_module_name name, const hjsd::Registers& registers,
                         RtlVariant variant = RtlVariant::kGood, const std::string& waves = "");
    ~PrefetchSchedulerRtl() override;

    void reset() override;
    hjsd::Outputs evaluate(const hjsd::Inputs& in) override;
    void clock() override;
    void set_registers(const hjsd::Registers& r) override;
    hjsd::Counters counters() const override;
    std::string refuse(const hjsd::Candidate& c) const override;
    // Candidates held in the RTL queue (its queue_count status port).
    uint32_t queued() const;
    // Throws SimulationError if an assertion of the bound checker failed at an edge taken so far.
    void check_assertions() const;

    struct Impl;

private:
    void start_of_simulation() override;

    std::unique_ptr<Impl> m_impl;
    hjsd::Registers m_regs;
    std::string m_waves;
    bool m_reset_done = false;
    bool m_edge_pending = false;
    sc_dt::uint64 m_edge_delta = 0;
    uint64_t m_edges = 0;  // clock edges after reset
};

}  // namespace asim::rtl
