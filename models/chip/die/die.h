// One Ascend-960-class die as the Foundation models it: AI cores (each one Cube pipeline and two
// vector pipelines), a shared L2 and HBM, and the op dispatcher, composed from DieParams.
//
// The on-die network (die.noc) adds hop latencies between the engines, the L2 slices and the HBM
// controllers; bandwidth contention stays at the endpoints (models/interconnect/noc).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <systemc>

#include "models/chip/aicore/aicore_params.h"
#include "models/chip/aicore/tile_pipeline.h"
#include "models/chip/aicore/tiling.h"
#include "models/chip/die/op_dispatcher.h"
#include "models/chip/hjsd/hjsd.h"
#include "models/common/clock_domain.h"
#include "models/common/failure_sink.h"
#include "models/common/stats.h"
#include "models/interconnect/noc/noc.h"
#include "models/common/timeline.h"
#include "models/memory/hbm/hbm_device.h"
#include "models/memory/hbm/hbm_model.h"
#include "models/memory/hbm_load_monitor.h"
#include "models/memory/l2/l2_cache.h"

namespace asim {

class ConfigNode;

struct DieParams {
    uint64_t clock_hz = 1'650'000'000;
    uint32_t ai_cores = 72;
    AiCoreParams core;
    L2Params l2;
    HjsdParams hjsd;
    HbmParams hbm;  // die.hbm: the device, and the fidelity it runs at
    std::optional<NocParams> noc;  // die.noc; absent: engines reach the L2 with no network latency

    // Derived figures for `info` and the summary.
    double peak_flops(DType dtype) const;  // matrix engine only; 0 when it lacks the dtype
    double vector_peak_ops(uint32_t elem_bytes) const;
};

// Reads the `die` map of a platform config.
DieParams parse_die_params(const ConfigNode& die);

class Die : public sc_core::sc_module {
public:
    Die(sc_core::sc_module_name name, const DieParams& params, StatsRegistry& stats,
        FailureSink& failures);

    const DieParams& params() const { return m_params; }
    const ClockDomain& clock() const { return m_clock; }
    OpDispatcher& dispatcher() { return *m_dispatcher; }
    const OpDispatcher& dispatcher() const { return *m_dispatcher; }
    const L2Cache& l2() const { return *m_l2; }
    const Hjsd& hjsd() const { return *m_hjsd; }
    const HbmModel& hbm() const { return *m_hbm; }
    Cycles cube_busy_cycles() const;
    // Records every pipe of the selected cores (Timeline::core_selected) as a track of group
    // `die.coreN` (AIC MTE2 / MTE1 / Cube / FixPipe, AIVm MTE2 / Vector / MTE3), and the L2 and
    // HBM traffic as counters of groups `die.l2` and `die.hbm`.
    void record_to(Timeline* timeline);
    // Functional run: every engine moves real bytes from / to `memory` and the Cube computes.
    void set_functional_memory(FunctionalMemory* memory);
    void finalize_stats();

private:
    void connect_network(const NocParams& noc);

    DieParams m_params;
    ClockDomain m_clock;
    std::unique_ptr<HbmModel> m_hbm;
    std::unique_ptr<L2Cache> m_l2;
    std::unique_ptr<HbmLoadMonitor> m_hbm_monitor;
    std::unique_ptr<Hjsd> m_hjsd;
    std::vector<std::unique_ptr<TilePipeline>> m_cube_pipes;
    std::vector<std::unique_ptr<TilePipeline>> m_vector_pipes;
    std::unique_ptr<Tiler> m_tiler;
    std::unique_ptr<OpDispatcher> m_dispatcher;
};

}  // namespace asim
