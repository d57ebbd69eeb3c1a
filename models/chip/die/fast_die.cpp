#include "models/chip/die/fast_die.h"

#include <string>

#include "models/common/errors.h"
#include "models/common/payload.h"

namespace asim {

FastDie::FastDie(sc_core::sc_module_name name, std::vector<FastOp> ops, StatsRegistry& stats,
                 FailureSink& failures, bool keep_deps)
    : sc_module(name),
      m_ops(std::move(ops)),
      m_failures(failures),
      m_started(m_ops.size(), 0),
      m_overlap(StatsGroup(stats, *this).group("dispatcher")),
      m_done(StatsGroup(stats, *this).counter("dispatcher.ops", "ops completed")),
      m_class_stats(register_op_class_stats(StatsGroup(stats, *this).group("dispatcher"))) {
    m_ledger.keep_deps(keep_deps);
    for (std::size_t i = 0; i < m_ops.size(); ++i) {
        const FastOp& f = m_ops[i];
        m_ledger.add(i, f.op);
        TransactionInfo tag;
        tag.op_id = f.op.id;
        if (f.hbm_read_bytes) m_ledger.hbm(tag, f.hbm_read_bytes, false);
        if (f.hbm_write_bytes) m_ledger.hbm(tag, f.hbm_write_bytes, true);
        if (f.l2_hits + f.l2_misses) m_ledger.l2(tag, f.l2_hits, f.l2_misses);
    }
    SC_METHOD(step);
    sensitive << m_wake;
}

void FastDie::complete(std::size_t index) {
    const Picoseconds now = ClockDomain::to_ps(sc_core::sc_time_stamp());
    const trace::Op& op = m_ops[index].op;
    OpClassStats& cs = m_class_stats[static_cast<std::size_t>(op.kind)];
    ++cs.count;
    cs.time_ps += now - m_started[index];
    cs.flops += static_cast<uint64_t>(trace::op_flops(op));
    if (op.kind == trace::OpKind::kCollective) {
        m_overlap.comm_finished(now);
    } else {
        m_overlap.compute_finished(now);
    }
    m_completed.insert(op.id);
    m_ledger.finished(op.id, now);
    --m_in_flight;
    ++m_done;
    m_end = std::max(m_end, now);
    if (m_progress) m_progress(m_done.value());
}

// Runs at time 0 and whenever something completes: retires the compute ops that are due,
// dispatches every op whose dependencies are done, and sleeps until the next compute end.
void FastDie::step() {
    try {
        const Picoseconds now = ClockDomain::to_ps(sc_core::sc_time_stamp());
        while (!m_compute_ends.empty() && m_compute_ends.front().first <= now) {
            complete(m_compute_ends.front().second);
            m_compute_ends.pop_front();
        }
        while (m_next < m_ops.size()) {
            const trace::Op& op = m_ops[m_next].op;
            bool ready = true;
            for (uint64_t d : op.deps) ready = ready && m_completed.count(d) != 0;
            if (!ready) break;
            const std::size_t index = m_next++;
            m_started[index] = now;
            m_ledger.started(op.id, now);
            ++m_in_flight;
            m_flops += trace::op_flops(op);
            if (op.kind == trace::OpKind::kCollective) {
                if (!m_collectives)
                    throw InputError("op " + std::to_string(op.id) +
                                     ": a collective needs a supernode");
                m_overlap.comm_started(now);
                // A fast die has no memory or vector pipelines: its share of the collective's
                // work (collective_work.h) is not modelled.
                m_collectives->start(op, {}, [this, index] {
                    complete(index);
                    m_wake.notify(sc_core::SC_ZERO_TIME);
                });
            } else {
                m_overlap.compute_started(now);
                m_compute_free = std::max(m_compute_free, now) + m_ops[index].duration;
                m_compute_ends.emplace_back(m_compute_free, index);
            }
        }
        if (!m_compute_ends.empty())
            m_wake.notify(ClockDomain::from_ps(m_compute_ends.front().first - now));
    } catch (...) {
        m_failures.fail(std::current_exception());
    }
}

}  // namespace asim
