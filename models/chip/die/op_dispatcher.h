// The die's op dispatcher: reads the trace one op at a time, waits for the op's dependencies,
// has the tiler split it into per-engine work and submits that to the Cube and vector
// pipelines. An op completes when its last engine finishes. Ops whose dependencies are met may
// overlap (up to kMaxOpsInFlight), so overlap follows from the trace's dependencies.
//
// Errors in a process (a bad trace line found mid-run, a pipeline deadlock) are caught where they
// happen, kept in the FailureSink, and the simulation is stopped; the platform rethrows them
// after sc_start returns so the exit code stays right (2 for input, 1 for simulation).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <systemc>

#include "models/chip/aicore/tile_pipeline.h"
#include "models/chip/aicore/tiling.h"
#include "models/chip/die/collective_work.h"
#include "models/chip/die/comm_overlap.h"
#include "models/chip/hjsd/hjsd.h"
#include "models/common/clock_domain.h"
#include "models/common/failure_sink.h"
#include "models/common/log.h"
#include "models/common/op_ledger.h"
#include "models/common/stats.h"
#include "models/common/timeline.h"
#include "models/common/trace.h"
#include "models/memory/tiers/tier_router.h"

namespace asim {

// Per op class (OpKind) totals.
struct OpClassStats {
    Counter& count;
    Counter& time_ps;  // sum of op durations (dispatch to completion)
    Counter& flops;
};

// `<prefix>.by_class.<kind>.{count, time_ps, flops}` for every op kind, indexed by OpKind.
std::vector<OpClassStats> register_op_class_stats(const StatsGroup& dispatcher);

// Sees every op as it is dispatched (with the tiler's plan) and as it completes, in simulated
// time order: functional checks hook in here. on_dispatch may throw InputError (the dispatcher
// adds the trace line); on_complete must not throw.
class OpObserver {
public:
    virtual ~OpObserver() = default;
    virtual void on_dispatch(const trace::Op& op, const OpPlan& plan) = 0;
    virtual void on_complete(uint64_t op_id) = 0;
};

// Runs a die's collective ops in a supernode run (testbenches/supernode): `start` is called at
// the simulated time the op is dispatched; the service calls `started` when the whole group has
// arrived and the collective begins, with this die's share of its work in die memory and on the
// vector cores (collective_work.h; may be empty), and `done` at the simulated time the collective
// ends on the network for this die. Without a service a collective op is refused.
class CollectiveService {
public:
    using Started = std::function<void(const CollectiveDieWork&)>;
    virtual ~CollectiveService() = default;
    virtual void start(const trace::Op& op, Started started, std::function<void()> done) = 0;
};

class OpDispatcher : public sc_core::sc_module {
public:
    static constexpr std::size_t kMaxOpsInFlight = 16;
    static constexpr std::size_t kOpKinds = 9;

    OpDispatcher(sc_core::sc_module_name name, const Tiler& tiler,
                 std::vector<TilePipeline*> cube_pipes, std::vector<TilePipeline*> vector_pipes,
                 StatsRegistry& stats, FailureSink& failures);

    // Must be called before the simulation starts.
    void set_trace(trace::TraceReader* reader) { m_reader = reader; }
    // The H-JSD fed with the weight tensors of upcoming ops (partition = the L2 weight
    // partition's index) and told when each op starts. Optional.
    // `pool_only`: offer only weights that live in a pool tier (die.hjsd.sources: pool).
    void set_prefetcher(Hjsd* hjsd, uint32_t weight_partition, bool pool_only) {
        m_hjsd = hjsd;
        m_weight_partition = weight_partition;
        m_pool_sources_only = pool_only;
    }
    // Each op's estimated cost in die cycles, summed in trace order into the estimated start
    // times the H-JSD's time horizon compares (op_start and each candidate carry their op's).
    // Without it every estimate is 0 (a horizon then bounds nothing).
    void set_cost_estimate(std::function<uint64_t(const trace::Op&)> cycles) {
        m_cost_estimate = std::move(cycles);
    }
    // Tensors must lie below `hbm_bytes` (the HBM capacity) or, with a memory pool (`tiers`
    // non-null), in one of its tiers; any other is an input error naming the trace line.
    void set_address_space(uint64_t hbm_bytes, const TierRouter* tiers = nullptr) {
        m_address_space = hbm_bytes;
        m_tiers = tiers;
    }
    // The H-JSD's staging credit pool: a weight in the pool larger than `l2_credit` (the weight
    // partition's) is prefetched into the staging region of local HBM instead of the L2.
    // With `all`, every weight in the pool goes to staging.
    void set_staging(uint32_t staging_pool, uint64_t l2_credit, bool all) {
        m_staging_pool = staging_pool;
        m_l2_weight_credit = all ? 0 : l2_credit;
        m_staging = true;
    }
    // Called after each op completes, with the number completed so far.
    void set_progress(std::function<void(uint64_t)> progress) { m_progress = std::move(progress); }
    // Names each op's work on the timeline the pipelines record to ("<name> #<id>").
    void set_timeline(Timeline* timeline) { m_timeline = timeline; }
    void set_observer(OpObserver* observer) { m_observer = observer; }
    void set_collective_service(CollectiveService* service) { m_collectives = service; }

    // Flushes the communication / compute overlap counters (comm_overlap.h).
    void finalize_stats();

    bool finished() const { return m_finished; }
    uint64_t ops_completed() const { return m_ops_done.value(); }
    double flops() const { return m_flops; }
    Picoseconds end_time_ps() const { return m_end_ps; }
    const OpClassStats& class_stats(trace::OpKind kind) const {
        return m_class_stats[static_cast<std::size_t>(kind)];
    }
    // FLOPs per dtype (matmul and attention), to pick the peak the run is measured against.
    const std::map<DType, double>& cube_flops_by_dtype() const { return m_cube_flops_by_dtype; }
    // Every op read, with its start, end and the traffic attributed to it (ops.csv). The die
    // tags its engines' and the H-JSD's transactions with it.
    OpLedger& ledger() { return m_ledger; }
    const OpLedger& ledger() const { return m_ledger; }

private:
    SC_HAS_PROCESS(OpDispatcher);
    struct InFlight {
        trace::OpKind kind;
        Picoseconds start;
        double flops;
        uint32_t remaining;            // engines still working on the current stage
        uint32_t label = 0;            // Timeline::label of the op
        std::deque<PlanStage> stages;  // stages still to run after the current one (tiling.h)
    };

    void run();
    // Reads ops into the lookahead window, offering their weights to the H-JSD.
    void fill_lookahead();
    void dispatch(const trace::Op& op);
    void check_deps_exist(const trace::Op& op);
    void work_done(uint64_t op_id);
    // Submits a stage's work to the engines; returns how many engines got some. `engine_done`
    // (optional) runs as each engine finishes, before the op's own accounting.
    uint32_t submit_stage(uint64_t op_id, uint32_t label, PlanStage& stage,
                          std::function<void()> engine_done = {});
    // A collective began: runs this die's share of its work (collective_work.h) on the vector
    // pipelines as part of the collective op.
    void start_collective_work(const trace::Op& op, const CollectiveDieWork& work);

    const Tiler& m_tiler;
    std::vector<TilePipeline*> m_cube_pipes;
    std::vector<TilePipeline*> m_vector_pipes;
    FailureSink& m_failures;
    trace::TraceReader* m_reader = nullptr;
    std::function<void(uint64_t)> m_progress;
    Timeline* m_timeline = nullptr;
    OpObserver* m_observer = nullptr;
    CollectiveService* m_collectives = nullptr;
    CommOverlap m_overlap;
    Logger m_log;
    Hjsd* m_hjsd = nullptr;
    uint64_t m_address_space = ~uint64_t{0};
    const TierRouter* m_tiers = nullptr;
    bool m_staging = false;
    uint32_t m_staging_pool = 0;
    uint64_t m_l2_weight_credit = 0;
    uint32_t m_weight_partition = 0;
    bool m_pool_sources_only = false;
    // Ops read but not yet dispatched, with their sequence numbers (trace order, from 0): the
    // H-JSD needs to see prefetch_depth ops ahead of the one running.
    struct ReadOp {
        uint64_t seq = 0;
        uint64_t est = 0;  // estimated start, cycles (set_cost_estimate)
        trace::Op op;
    };
    std::deque<ReadOp> m_lookahead;
    ReadOp m_current;  // the op being dispatched
    std::function<uint64_t(const trace::Op&)> m_cost_estimate;
    uint64_t m_est_next = 0;  // the estimated start of the next op read
    uint64_t m_ops_read = 0;
    bool m_trace_done = false;
    trace::IdGaps m_id_gaps;  // deps on ids the trace skipped are errors

    std::map<uint64_t, InFlight> m_in_flight;
    sc_core::sc_event m_op_completed;
    bool m_finished = false;
    double m_flops = 0.0;
    Picoseconds m_end_ps = 0;
    std::map<DType, double> m_cube_flops_by_dtype;
    OpLedger m_ledger;

    Counter& m_ops_done;
    std::vector<OpClassStats> m_class_stats;
    Counter& m_comm_memory_bytes;
    Counter& m_comm_die_work_ps;
};

}  // namespace asim
