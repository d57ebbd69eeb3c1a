// Stimulus for the prefetch-scheduler co-simulation: one cycle's inputs at a time, driven into
// the RTL and the C++ reference alike. Generators react only to what the reference did (a
// candidate accepted, a request issued), so the stimulus is the same for both sides as long as
// they agree; the first disagreement stops the bench.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "models/chip/hjsd/prefetch_scheduler_core.h"

namespace asim::cosim {

class Stimulus {
public:
    virtual ~Stimulus() = default;
    virtual hjsd::Registers initial_registers() const = 0;
    // This cycle's inputs; `regs` is set when the registers change before this cycle.
    virtual void drive(uint64_t cycle, hjsd::Inputs& in, std::optional<hjsd::Registers>& regs) = 0;
    // What the reference did in the cycle just driven.
    virtual void observe(uint64_t cycle, const hjsd::Inputs& in, const hjsd::Outputs& out) = 0;
    // The stimulus has nothing more to say (trace-derived: every op ran and the queue drained).
    virtual bool done(std::size_t queued) const = 0;
    virtual std::string describe() const = 0;
};

// Constrained random, in phases of a few hundred to a few thousand cycles; each phase draws a
// candidate rate (sparse .. bursts), a throttle toggling rate, request-port back-pressure, a
// credit mode (returned after a delay, starved, flooded past the limits), an op_start rate with
// jumps, and sometimes new registers (depth 0..max, enable, chunk, credit limits, and after the
// first phase a time horizon). Candidates come from random source tiers, and a few are exactly
// their partition's credit limit or just above it (oversize). Ops' estimated starts sum random
// costs from just below the wrap at 2^kEstBits, which they cross after a few hundred ops and
// again after the long ops some phases insert.
std::unique_ptr<Stimulus> make_random_stimulus(uint64_t seed);

// From a real op trace: every weight input tensor of an op becomes a candidate (op_seq = position
// in the trace); ops run for a time that grows with the bytes they touch; prefetched bytes come
// back as credit while their op runs; the request port has 8 outstanding slots with a fixed
// latency, and a seeded HBM-load throttle toggles now and then. Candidates are tier 0 (local HBM)
// and partition 0; estimated starts are the ops' starts; no horizon. `trace` is a file or
// builtin:NAME.
std::unique_ptr<Stimulus> make_trace_stimulus(const std::string& trace, uint64_t seed);

}  // namespace asim::cosim
