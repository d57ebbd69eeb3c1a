// One engine's pipeline: MTE2 loads -> MTE1 -> Cube -> Cube-to-Vector path -> Vector -> stores
// (FixPipe/MTE3), with `input_buffers` input buffers (2: ping-pong) and `output_buffers` output
// buffers.
//
// Timing model. Each stage is a unit that serves tiles in order; a tile enters a stage when it
// has left the previous one and the stage is free. Loads and stores are TLM transactions to the
// L2 at the time they issue, through this engine's port (a bandwidth server of the path's
// bytes/cycle), so they queue behind each other and behind every other engine in the L2 and HBM.
// Compute stages are arithmetic: a tile's cube time is its fractal count. The overlap between
// loading tile i+1 and computing tile i therefore follows from the buffer dependencies:
//   load(i)   waits for compute(i - input_buffers) to finish (its input buffer is free again);
//   compute(i) waits for load(i), and, when it starts an output block, for the store of the
//              block `output_buffers` back;
//   store(i)  waits for compute(i).
// The thread waits only when a memory transaction has to be issued (twice per tile at most), so
// kernel events scale with tiles, never with cycles; an idle engine costs nothing.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "models/common/busy_windows.h"

#include "models/chip/aicore/tile.h"
#include "models/common/bandwidth_server.h"
#include "models/common/clock_domain.h"
#include "models/common/dtype.h"
#include "models/common/failure_sink.h"
#include "models/common/functional_memory.h"
#include "models/common/op_ledger.h"
#include "models/common/payload.h"
#include "models/common/stats.h"
#include "models/common/timeline.h"

namespace asim {

constexpr uint32_t kMaxInputBuffers = 4;

struct PipelineWork {
    std::unique_ptr<TileSource> tiles;
    uint64_t op_id = 0;
    uint32_t output_buffers = 2;
    uint32_t input_buffers = 2;     // tiles loaded ahead (2: ping-pong); at most kMaxInputBuffers
    std::function<void()> on_done;  // called at the simulated time the last store completes
    uint32_t timeline_label = 0;    // Timeline::label of the op, when a timeline is recorded
    // Element formats of a matmul's tiles, for functional runs.
    DType input_dtype = DType::kBf16;
    uint32_t output_bits = 16;
};

// The timeline tracks a pipeline records its stages on (Timeline::kNoTrack: a stage it lacks or
// that is not recorded). The store stage is FixPipe on a Cube core, MTE3 on a vector core.
struct PipelineTracks {
    Timeline::TrackId mte2 = Timeline::kNoTrack, mte1 = Timeline::kNoTrack,
                      cube = Timeline::kNoTrack, c2v = Timeline::kNoTrack,
                      vector = Timeline::kNoTrack, store = Timeline::kNoTrack;
};

struct TilePipelineParams {
    double load_bytes_per_cycle = 100;   // MTE2 path from the L2
    double store_bytes_per_cycle = 128;  // FixPipe / MTE3 path to the L2
    // The memory below waits in b_transport (the JEDEC HBM) instead of returning a computed
    // delay. Loads are then issued from load lanes (one thread per input buffer), so the loads of
    // the tiles ahead are in flight together, as MTE2 keeps them, instead of one after another.
    bool memory_waits = false;
};

class TilePipeline : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<TilePipeline> l2_out;

    TilePipeline(sc_core::sc_module_name name, const ClockDomain& clock,
                 const TilePipelineParams& params, StatsRegistry& stats, FailureSink& failures);

    void submit(PipelineWork work);
    // Functional run: loads and stores move real bytes from / to `memory` at their simulated
    // time and the Cube computes matmul tiles (functional_cube.h). Null: timing only.
    void set_functional_memory(FunctionalMemory* memory) { m_memory = memory; }
    // Adds the Cube's busy intervals to `windows` (the die's utilisation curve).
    void set_cube_windows(BusyWindows* windows) { m_cube_windows = windows; }
    // Tags every load and store with `ledger`, which counts their traffic per op (op_ledger.h).
    void set_ledger(OpLedger* ledger) { m_ledger = ledger; }
    void record_to(Timeline* timeline, const PipelineTracks& tracks) {
        m_timeline = timeline;
        m_tracks = tracks;
    }
    bool idle() const { return m_queue.empty() && !m_busy; }

    Cycles cube_busy_cycles() const { return m_cube_busy.value(); }
    Cycles vector_busy_cycles() const { return m_vector_busy.value(); }

private:
    SC_HAS_PROCESS(TilePipeline);
    void run();
    // One op's work through the stages: execute() decides, of the next load and the next store,
    // which can happen first, waits for it and does it; compute is pure arithmetic, done for
    // every loaded tile whose output buffer is free (compute_loaded).
    void execute(PipelineWork& work);
    struct Run;  // execute()'s state: the ring of tiles between load and store
    // Computes the loaded tiles in order, up to the first whose load is in a lane or whose
    // output buffer waits for a store.
    void compute_loaded(Run& run, PipelineWork& work);
    void store_next(Run& run, PipelineWork& work, Picoseconds now, Picoseconds when);
    void load_next(Run& run, PipelineWork& work, Picoseconds now, Picoseconds when);
    void record_transfer(Timeline::TrackId track, Picoseconds& shown_until, Picoseconds begin,
                         Picoseconds end, uint32_t label);
    struct FunctionalSlot {
        std::vector<uint8_t> a, b, out;
    };
    void compute_functional(const Tile& tile, FunctionalSlot& slot, const PipelineWork& work);
    void load_functional(const Tile& tile, FunctionalSlot& slot);
    void store_functional(const Tile& tile, FunctionalSlot& slot, const PipelineWork& work);
    Picoseconds transfer(const MemAccess* accesses, std::size_t count, bool is_write,
                         bool atomic_add, BandwidthServer& port, uint64_t op_id);
    // Load lanes (params.memory_waits): a load handed to a lane completes in the lane's thread,
    // which writes its end time to `*end` and notifies m_load_returned.
    struct LaneLoad {
        std::array<MemAccess, Tile::kMaxLoads> accesses;
        std::size_t count = 0;
        uint64_t op_id = 0;
        Picoseconds* end = nullptr;
    };
    void start_load(const Tile& tile, uint64_t op_id, Picoseconds* end);
    void load_lane();

    const ClockDomain& m_clock;
    FailureSink& m_failures;
    bool m_lanes = false;
    std::deque<LaneLoad> m_lane_queue;
    sc_core::sc_event m_lane_work;      // a load was queued for the lanes
    sc_core::sc_event m_load_returned;  // a lane finished a load
    uint32_t m_loads_in_flight = 0;
    BandwidthServer m_load_port;
    BandwidthServer m_store_port;
    // Stage free times, in cycles of m_clock; they carry over from one work item to the next.
    Cycles m_mte1_free = 0, m_cube_free = 0, m_c2v_free = 0, m_vector_free = 0;
    std::deque<PipelineWork> m_queue;
    PipelineWork m_current;
    bool m_busy = false;
    sc_core::sc_event m_work_arrived;
    PayloadPool m_pool;
    Timeline* m_timeline = nullptr;
    PipelineTracks m_tracks;
    Picoseconds m_load_shown_until = 0, m_store_shown_until = 0;  // see record_transfer
    FunctionalMemory* m_memory = nullptr;
    OpLedger* m_ledger = nullptr;
    std::vector<double> m_accumulator;  // L0C of the output block being computed (functional)
    std::vector<FunctionalSlot> m_functional_slots;

    Counter& m_tiles;
    Counter& m_cube_busy;
    BusyWindows* m_cube_windows = nullptr;
    Counter& m_vector_busy;
    Counter& m_mte1_busy;
    Counter& m_load_bytes;
    Counter& m_store_bytes;
};

}  // namespace asim
