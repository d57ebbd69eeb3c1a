#include "models/chip/die/op_dispatcher.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <memory>

#include <fmt/format.h>

#include "models/common/errors.h"

namespace asim {

namespace {
constexpr std::array<trace::OpKind, OpDispatcher::kOpKinds> kKinds = {
    trace::OpKind::kMatmul,     trace::OpKind::kFusedAttention, trace::OpKind::kElementwise,
    trace::OpKind::kActivation, trace::OpKind::kNorm,           trace::OpKind::kSoftmax,
    trace::OpKind::kReduce,     trace::OpKind::kMemcpy,         trace::OpKind::kCollective};
}  // namespace

std::vector<OpClassStats> register_op_class_stats(const StatsGroup& dispatcher) {
    std::vector<OpClassStats> list;
    for (trace::OpKind kind : kKinds) {
        const StatsGroup g = dispatcher.group("by_class." + std::string(trace::to_string(kind)));
        list.push_back({g.counter("count", "ops of this class"),
                        g.counter("time_ps", "sum of op durations", "ps"),
                        g.counter("flops", "mathematical FLOPs", "FLOP")});
    }
    return list;
}

OpDispatcher::OpDispatcher(sc_core::sc_module_name name, const Tiler& tiler,
                           std::vector<TilePipeline*> cube_pipes,
                           std::vector<TilePipeline*> vector_pipes, StatsRegistry& stats,
                           FailureSink& failures)
    : sc_module(name),
      m_tiler(tiler),
      m_cube_pipes(std::move(cube_pipes)),
      m_vector_pipes(std::move(vector_pipes)),
      m_failures(failures),
      m_overlap(StatsGroup(stats, *this)),
      m_log(this->name()),
      m_ops_done(StatsGroup(stats, *this).counter("ops", "ops completed")),
      m_comm_memory_bytes(
          StatsGroup(stats, *this)
              .counter("comm_memory_bytes",
                       "bytes collectives read and wrote in this die's memory (requests to "
                       "the L2) to move their data and reduce it",
                       "B")),
      m_comm_die_work_ps(
          StatsGroup(stats, *this)
              .counter("comm_die_work_ps",
                       "time from each collective's start until this die's share of its "
                       "data movement and reductions finished, summed",
                       "ps")) {
    m_class_stats = register_op_class_stats(StatsGroup(stats, *this));
    SC_THREAD(run);
}

void OpDispatcher::run() {
    try {
        if (!m_reader) throw SimulationError(std::string(name()) + ": no trace");
        fill_lookahead();
        while (!m_lookahead.empty()) {
            // The op lives in a member, not on this thread's stack: a run stopped early (watchdog,
            // error) never resumes the thread, and only members are freed by the destructor.
            m_current = std::move(m_lookahead.front());
            m_lookahead.pop_front();
            const uint64_t seq = m_current.seq;
            const trace::Op& op = m_current.op;
            // Wait for the op's dependencies and for room in the window.
            auto blocked = [&] {
                if (m_in_flight.size() >= kMaxOpsInFlight) return true;
                return std::any_of(op.deps.begin(), op.deps.end(),
                                   [&](uint64_t d) { return m_in_flight.count(d) != 0; });
            };
            while (blocked()) wait(m_op_completed);
            if (m_hjsd) m_hjsd->op_start(seq, m_current.est);
            dispatch(op);
            fill_lookahead();
        }
        while (!m_in_flight.empty()) wait(m_op_completed);
        m_finished = true;
    } catch (const sc_core::sc_unwind_exception&) {
        throw;  // the kernel unwinding this thread
    } catch (...) {
        m_failures.fail(std::current_exception());
    }
}

void OpDispatcher::fill_lookahead() {
    while (!m_trace_done && m_lookahead.size() <= hjsd::kMaxDepth) {
        trace::Op op;
        if (!m_reader->next(op)) {
            m_trace_done = true;
            return;
        }
        check_deps_exist(op);
        const uint64_t seq = m_ops_read++;
        m_ledger.add(seq, op);
        const uint64_t est = m_est_next;
        if (m_cost_estimate) m_est_next += m_cost_estimate(op);
        if (m_hjsd) {
            for (const trace::Tensor& t : op.inputs) {
                if (t.stream != StreamClass::kWeight) continue;
                const Tier tier = m_tiers ? m_tiers->decode(t.addr, t.bytes).tier : Tier::kHbm;
                if (m_pool_sources_only && tier == Tier::kHbm) continue;
                const bool stage = m_staging && tier != Tier::kHbm && t.bytes > m_l2_weight_credit;
                hjsd::Candidate c{seq, t.addr, t.bytes,
                                  stage ? m_staging_pool : m_weight_partition};
                c.tier = static_cast<uint32_t>(tier);  // the source tier (DESIGN §5)
                c.est = est & hjsd::kEstMask;          // the horizon's clock wraps
                m_hjsd->add_candidate(c);
            }
        }
        m_lookahead.push_back({seq, est, std::move(op)});
    }
}

void OpDispatcher::check_deps_exist(const trace::Op& op) {
    for (const auto* list : {&op.inputs, &op.outputs}) {
        for (const trace::Tensor& t : *list) {
            const bool in_hbm = t.addr < m_address_space && t.bytes <= m_address_space - t.addr;
            if (!in_hbm && !(m_tiers && m_tiers->decode(t.addr, t.bytes).valid)) {
                const std::string reason = m_tiers ? m_tiers->refusal(t.addr) : "";
                char range[64];
                std::snprintf(range, sizeof range, "[0x%llx, +%llu B)",
                              static_cast<unsigned long long>(t.addr),
                              static_cast<unsigned long long>(t.bytes));
                throw InputError(
                    m_reader->display_name() + ":" + std::to_string(op.line) + ": op " +
                    std::to_string(op.id) + ": tensor '" + t.name + "' " + range +
                    " lies beyond the platform's HBM (" + std::to_string(m_address_space) + " B)" +
                    (m_tiers ? " and outside every memory tier of its dsm: address map" : "") +
                    (reason.empty() ? "" : ": " + reason));
            }
        }
    }
    m_id_gaps.check(op, m_reader->display_name());
}

void OpDispatcher::finalize_stats() {
    m_overlap.account(ClockDomain::to_ps(sc_core::sc_time_stamp()));
}

void OpDispatcher::dispatch(const trace::Op& op) {
    if (op.kind == trace::OpKind::kCollective && m_collectives) {
        m_overlap.comm_started(ClockDomain::to_ps(sc_core::sc_time_stamp()));
        m_in_flight[op.id] = {op.kind, ClockDomain::to_ps(sc_core::sc_time_stamp()), 0.0, 1, 0, {}};
        m_ledger.started(op.id, ClockDomain::to_ps(sc_core::sc_time_stamp()));
        const uint64_t id = op.id;
        try {
            m_collectives->start(
                op, [this, op](const CollectiveDieWork& work) { start_collective_work(op, work); },
                [this, id] { work_done(id); });
        } catch (const InputError& e) {
            throw InputError(m_reader->display_name() + ":" + std::to_string(op.line) + ": " +
                             e.what());
        }
        return;
    }
    OpPlan plan;
    try {
        plan = m_tiler.plan(op);
        if (m_observer) m_observer->on_dispatch(op, plan);
    } catch (const InputError& e) {
        throw InputError(m_reader->display_name() + ":" + std::to_string(op.line) + ": " +
                         e.what());
    }
    const Picoseconds now = ClockDomain::to_ps(sc_core::sc_time_stamp());
    const double flops = trace::op_flops(op);
    m_flops += flops;
    if (op.kind == trace::OpKind::kMatmul || op.kind == trace::OpKind::kFusedAttention) {
        m_cube_flops_by_dtype[op.dtype] += flops;
    }
    m_log.debug("dispatch op {} ({} '{}'), {:.3g} FLOP", op.id, trace::to_string(op.kind), op.name,
                flops);
    InFlight& rec = m_in_flight[op.id];
    rec = {op.kind, now, flops, 0, 0, {}};
    m_ledger.started(op.id, now);
    m_overlap.compute_started(now);
    rec.label = m_timeline
                    ? m_timeline->label(fmt::format(
                          "{} #{}", op.name.empty() ? trace::to_string(op.kind) : op.name, op.id))
                    : 0;
    // Stages run one after the other (prologue, main, epilogue); work_done starts each when the
    // one before has finished, the first one right now (an op with no work completes now).
    PlanStage main{std::move(plan.cube_work), std::move(plan.vector_work)};
    if (plan.prologue) rec.stages.push_back(std::move(*plan.prologue));
    rec.stages.push_back(std::move(main));
    if (plan.epilogue) rec.stages.push_back(std::move(*plan.epilogue));
    ++rec.remaining;
    work_done(op.id);
}

void OpDispatcher::start_collective_work(const trace::Op& op, const CollectiveDieWork& work) {
    auto it = m_in_flight.find(op.id);
    if (it == m_in_flight.end() || m_address_space == ~uint64_t{0}) return;
    const Picoseconds start = ClockDomain::to_ps(sc_core::sc_time_stamp());
    // Engines still working on this collective's share; the last one adds the span.
    auto left = std::make_shared<uint32_t>(0);
    auto engine_done = [this, left, start] {
        if (--*left == 0)
            m_comm_die_work_ps += ClockDomain::to_ps(sc_core::sc_time_stamp()) - start;
    };
    for (const trace::Op& piece : collective_die_ops(op, work, m_address_space)) {
        OpPlan plan = m_tiler.plan(piece);
        m_comm_memory_bytes += memory_bytes(piece);
        PlanStage stage{std::move(plan.cube_work), std::move(plan.vector_work)};
        const uint32_t engines = submit_stage(op.id, it->second.label, stage, engine_done);
        *left += engines;
        it->second.remaining += engines;
    }
}

uint32_t OpDispatcher::submit_stage(uint64_t op_id, uint32_t label, PlanStage& stage,
                                    std::function<void()> engine_done) {
    uint32_t engines = 0;
    auto submit = [&](std::vector<PipelineWork>& work, std::vector<TilePipeline*>& pipes) {
        for (std::size_t i = 0; i < work.size() && i < pipes.size(); ++i) {
            if (!work[i].tiles) continue;
            work[i].op_id = op_id;
            work[i].timeline_label = label;
            work[i].on_done = [this, op_id, engine_done] {
                if (engine_done) engine_done();
                work_done(op_id);
            };
            ++engines;
            pipes[i]->submit(std::move(work[i]));
        }
    };
    submit(stage.cube_work, m_cube_pipes);
    submit(stage.vector_work, m_vector_pipes);
    return engines;
}

void OpDispatcher::work_done(uint64_t op_id) {
    auto it = m_in_flight.find(op_id);
    if (it == m_in_flight.end() || it->second.remaining == 0) {
        m_failures.fail(std::make_exception_ptr(SimulationError(
            std::string(name()) + ": completion for unknown op " + std::to_string(op_id))));
        return;
    }
    if (--it->second.remaining > 0) return;
    // The stage is done: start the next one that has work, if any.
    while (!it->second.stages.empty()) {
        PlanStage stage = std::move(it->second.stages.front());
        it->second.stages.pop_front();
        it->second.remaining = submit_stage(op_id, it->second.label, stage);
        if (it->second.remaining > 0) return;
    }
    const Picoseconds now = ClockDomain::to_ps(sc_core::sc_time_stamp());
    OpClassStats& cs = m_class_stats[static_cast<std::size_t>(it->second.kind)];
    ++cs.count;
    cs.time_ps += now - it->second.start;
    cs.flops += static_cast<uint64_t>(it->second.flops);
    m_end_ps = std::max(m_end_ps, now);
    m_ledger.finished(op_id, now);
    m_log.debug("op {} done after {} ps", op_id, now - it->second.start);
    if (it->second.kind == trace::OpKind::kCollective) {
        m_overlap.comm_finished(now);
    } else {
        m_overlap.compute_finished(now);
    }
    m_in_flight.erase(it);
    if (m_observer) m_observer->on_complete(op_id);
    ++m_ops_done;
    m_op_completed.notify(sc_core::SC_ZERO_TIME);
    if (m_progress) m_progress(m_ops_done.value());
}

}  // namespace asim
