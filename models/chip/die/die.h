// One Ascend-960-class die as the Foundation models it: AI cores (each one Cube pipeline and two
// vector pipelines), a shared L2 and HBM, and the op dispatcher, composed from DieParams.
//
// The on-die network (die.noc), a module between the engines and the L2, adds hop latencies
// between the engines, the L2 slices and the HBM controllers, and optionally the mesh links'
// bandwidth (models/interconnect/noc).
#pragma once

#include <cstdint>
#include <functional>
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
#include "models/common/timeline.h"
#include "models/interconnect/noc/noc.h"
#include "models/interconnect/noc/on_die_network.h"
#include "models/memory/hbm/hbm_device.h"
#include "models/memory/interfaces/hbm_load_monitor.h"
#include "models/memory/interfaces/hbm_model.h"
#include "models/memory/l2/l2_cache.h"
#include "models/memory/tiers/dsm_params.h"
#include "models/memory/tiers/dsm_pool.h"
#include "models/memory/tiers/tier_router.h"

namespace asim {

class ConfigNode;

struct DieParams {
    uint64_t clock_hz = 1'650'000'000;
    uint32_t ai_cores = 72;
    AiCoreParams core;
    L2Params l2;
    HjsdParams hjsd;
    HbmParams hbm;                 // die.hbm: the device, and the fidelity it runs at
    std::optional<NocParams> noc;  // die.noc; absent: engines reach the L2 with no network latency
    DsmParams dsm;                 // the platform's `dsm:` (memory pool tiers); empty: HBM only

    // Derived figures for `info` and the summary.
    double peak_flops(DType dtype) const;  // matrix engine only; 0 when it lacks the dtype
    double vector_peak_ops(uint32_t elem_bytes) const;
};

// Reads the `die` map of a platform config.
DieParams parse_die_params(const ConfigNode& die);

class Die : public sc_core::sc_module {
public:
    // `pool`: the supernode's shared pool devices (null: the die makes its own, a single die);
    // `index`: the die's number among the owners of the pool's remote_hbm windows.
    Die(sc_core::sc_module_name name, const DieParams& params, StatsRegistry& stats,
        FailureSink& failures, DsmPool* pool = nullptr, uint32_t index = 0);

    const DieParams& params() const { return m_params; }
    const ClockDomain& clock() const { return m_clock; }
    OpDispatcher& dispatcher() { return *m_dispatcher; }
    const OpDispatcher& dispatcher() const { return *m_dispatcher; }
    const L2Cache& l2() const { return *m_l2; }
    const Hjsd& hjsd() const { return *m_hjsd; }
    const HbmModel& hbm() const { return *m_hbm; }
    // The memory pool's router, or null on a platform without `dsm:`.
    const TierRouter* tiers() const { return m_tiers.get(); }
    Cycles cube_busy_cycles() const;
    // The Cube engines' busy time per window of `window` ps (default 100 us): the utilisation
    // curve. Set before the simulation starts.
    void set_util_window(Picoseconds window) { m_cube_windows = BusyWindows(window); }
    const BusyWindows& cube_windows() const { return m_cube_windows; }
    // Records every pipe of the selected cores (Timeline::core_selected) as a track of group
    // `die.coreN` (AIC MTE2 / MTE1 / Cube / FixPipe, AIVm MTE2 / Vector / MTE3), and the L2 and
    // HBM traffic as counters of groups `die.l2` and `die.hbm` (both of `counter_group` when one is
    // given: a trace set shows a die's counters beside its ops).
    void record_to(Timeline* timeline, const std::string& counter_group = "");
    // Functional run: every engine moves real bytes from / to `memory` and the Cube computes.
    void set_functional_memory(FunctionalMemory* memory);
    void finalize_stats();

private:
    void connect_network(const NocParams& noc, StatsRegistry& stats);
    std::function<uint64_t(const trace::Op&)> roofline_cycles() const;

    DieParams m_params;
    ClockDomain m_clock;
    std::unique_ptr<HbmModel> m_hbm;
    std::unique_ptr<L2Cache> m_l2;
    std::unique_ptr<OnDieNetwork> m_noc;  // null: engines bind to the L2 directly
    std::unique_ptr<DsmPool> m_own_pool;
    std::unique_ptr<TierRouter> m_tiers;
    std::unique_ptr<HbmLoadMonitor> m_hbm_monitor;
    std::unique_ptr<Hjsd> m_hjsd;
    std::vector<std::unique_ptr<TilePipeline>> m_cube_pipes;
    std::vector<std::unique_ptr<TilePipeline>> m_vector_pipes;
    std::unique_ptr<Tiler> m_tiler;
    BusyWindows m_cube_windows{100'000'000};
    std::unique_ptr<OpDispatcher> m_dispatcher;
};

}  // namespace asim
