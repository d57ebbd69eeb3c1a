// The decision engine the chip's H-JSD steps, behind one interface so that either the C++
// reference core (prefetch_scheduler_core.h) or the Verilated RTL block
// (rtl/prefetch_scheduler/prefetch_scheduler_rtl.h) can sit in the chip, chosen by
// `die.hjsd.impl` from the engine registry: `tlm` registers here, `rtl` in the RTL library (so
// the chip's model does not depend on Verilator; a binary without the RTL library offers tlm). The
// co-simulation bench drives both through the same calls.
//
// A cycle is evaluate(inputs) followed by clock(): evaluate presents the cycle's inputs and
// returns what the block drives (valid/ready, the request, a late or oversize drop); clock() is
// the rising edge that commits them. evaluate() may be called again in the same cycle with other
// inputs (the chip does when an input arrives before it stepped). The RTL engine settles its
// signals in SystemC delta cycles, so the calls must come from a SystemC thread; an engine uses at
// most kResetDeltas for reset() and kEvaluateDeltas for evaluate(), and the chip pads both to
// exactly that, so that the rest of the chip sees the same order of events whichever engine
// decides.
#pragma once

#include <memory>
#include <string>

#include "models/chip/hjsd/prefetch_scheduler_core.h"
#include "models/common/registry.h"

namespace asim::hjsd {

constexpr uint64_t kResetDeltas = 3;
constexpr uint64_t kEvaluateDeltas = 2;

class SchedulerEngine {
public:
    virtual ~SchedulerEngine() = default;
    // Brings the block out of reset with the registers applied; before the first evaluate().
    virtual void reset() {}
    virtual Outputs evaluate(const Inputs& in) = 0;
    virtual void clock() = 0;
    // Register writes count from the next evaluate() (credits are clamped to new limits).
    virtual void set_registers(const Registers& r) = 0;
    virtual Counters counters() const = 0;
    // Why a candidate cannot enter this engine ("" when it can): the RTL's ports are narrower
    // than the core's fields.
    virtual std::string refuse(const Candidate&) const { return ""; }
};

// What an engine is built for: the H-JSD's queue depth, the L2's partitions and the registers.
struct EngineSpec {
    uint32_t queue_depth = 16;
    uint32_t partitions = 0;
    Registers registers;
};

// The engines, by name (`die.hjsd.impl`). An entry's check names what keeps a spec off it.
Registry<SchedulerEngine, const EngineSpec&>& engine_registry();

// The C++ reference core as an engine.
class CoreEngine final : public SchedulerEngine {
public:
    CoreEngine(uint32_t queue_depth, uint32_t partitions, const Registers& registers)
        : m_core(queue_depth, partitions, registers) {}
    Outputs evaluate(const Inputs& in) override {
        m_in = in;
        return m_core.peek(in);
    }
    void clock() override { m_core.step(m_in); }
    void set_registers(const Registers& r) override { m_core.set_registers(r); }
    Counters counters() const override { return m_core.counters(); }
    const PrefetchSchedulerCore& core() const { return m_core; }

private:
    PrefetchSchedulerCore m_core;
    Inputs m_in;
};

}  // namespace asim::hjsd
