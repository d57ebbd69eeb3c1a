// The prefetch-scheduler co-simulation: one stimulus into the Verilated RTL and the C++
// reference core, a scoreboard on the request streams, functional coverage.
//
// Each cycle the stimulus is presented to both engines (scheduler_engine.h), their outputs are
// compared, then both take the clock edge. The scoreboard checks the handshake (cand_ready) and
// the late-drop status every cycle, the issued request streams in content and order with issue
// cycles within kIssueCycleTolerance, and every counter at the end. The first mismatch stops the
// bench and reports the differences with the stimulus of the cycles before it. The RTL also
// carries the contract's checker (rtl/prefetch_scheduler/prefetch_scheduler_checker.sv): a failed
// assertion stops the bench the same way ("ASSERTION"), with or without the scoreboard.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "models/chip/hjsd/prefetch_scheduler_core.h"
#include "rtl/prefetch_scheduler/prefetch_scheduler_rtl.h"
#include "testbenches/prefetch_scheduler/coverage.h"

namespace asim::cosim {

// Issue cycles of the RTL may differ from the reference's by at most this many cycles.
constexpr uint64_t kIssueCycleTolerance = 0;

struct CosimOptions {
    uint64_t seed = 1;
    uint64_t cycles = 100'000;  // random: cycles to run; trace: upper bound
    std::string trace;          // empty: constrained random; else a trace file or builtin:NAME
    std::string waves;          // VCD file, or empty
    rtl::RtlVariant variant = rtl::RtlVariant::kGood;
    std::size_t context = 8;  // cycles of stimulus shown before a mismatch
    bool scoreboard = true;   // false: only the RTL's bound assertions judge it
    bool assertions = true;   // false: only the scoreboard judges it
};

struct CosimResult {
    bool passed = false;
    uint64_t cycles = 0;
    uint64_t issued = 0;
    double wall_s = 0;
    std::string stimulus;  // what drove it
    std::string
        mismatch;  // the report of the first mismatch or failed assertion, empty when passed
    bool assertion_failed = false;  // the RTL's bound checker stopped the run
    hjsd::Counters reference, rtl;
    Coverage coverage;
    double cycles_per_s() const { return wall_s > 0 ? static_cast<double>(cycles) / wall_s : 0; }
};

// Elaborates the bench and runs the SystemC kernel: once per process. Throws InputError for an
// unreadable trace or bad options.
CosimResult run_cosim(const CosimOptions& options);

}  // namespace asim::cosim
