// sc_spawn (the SDMA lanes) needs this before SystemC is first included.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "models/chip/hjsd/hjsd.h"

#include <algorithm>

#include "models/common/errors.h"

namespace asim {

std::vector<std::pair<std::string, std::string>> HjsdParams::validate() const {
    auto problems = hjsd::PrefetchSchedulerCore::validate(registers, hjsd::kMaxPartitions);
    if (queue_depth == 0) problems.emplace_back("queue_depth", "must be at least 1");
    if (sdma_outstanding == 0) problems.emplace_back("sdma_outstanding", "must be at least 1");
    if (!(throttle_threshold > 0))
        problems.emplace_back("throttle.threshold", "must be greater than zero");
    if (throttle_window_ps <= 0)
        problems.emplace_back("throttle.window", "must be greater than zero");
    if (!hjsd::engine_registry().contains(impl)) {
        problems.emplace_back("impl", hjsd::engine_registry().unknown_message(impl));
    } else {
        for (auto& problem : hjsd::engine_registry().check(impl, {queue_depth, 0, registers})) {
            problems.push_back(std::move(problem));
        }
    }
    return problems;
}

Hjsd::Hjsd(sc_core::sc_module_name name, const HjsdParams& params, uint32_t partitions,
           const ClockDomain& clock, HbmLoadMonitor& monitor, StatsRegistry& stats,
           FailureSink& failures)
    : sc_module(name),
      l2_out("l2_out"),
      m_params(params),
      m_clock(clock),
      m_monitor(monitor),
      m_failures(failures),
      m_stats{
          StatsGroup(stats, *this).counter("issued_chunks", "prefetch requests issued"),
          StatsGroup(stats, *this).counter("issued_bytes", "bytes prefetched", "B"),
          StatsGroup(stats, *this)
              .counter("late_drops", "candidates dropped: their op had started"),
          StatsGroup(stats, *this)
              .counter("oversize_drops",
                       "candidates dropped: larger than their credit pool's limit (the partition "
                       "cannot hold them)"),
          StatsGroup(stats, *this)
              .counter("credit_stalls", "cycles the head waited for partition credit", "cycles"),
          StatsGroup(stats, *this)
              .counter("throttle_stalls", "cycles the head waited for HBM load to drop", "cycles"),
          StatsGroup(stats, *this)
              .counter("port_stalls", "cycles the head waited for a free SDMA slot", "cycles"),
          StatsGroup(stats, *this).counter("candidates", "candidates accepted"),
          StatsGroup(stats, *this)
              .counter("active_cycles", "cycles the core was stepped", "cycles")} {
    // The horizon register counts this die's cycles.
    m_params.registers.horizon = static_cast<uint64_t>(
        clock.ps_to_cycles_floor(static_cast<Picoseconds>(params.horizon_ps)));
    for (const auto& [key, message] :
         hjsd::PrefetchSchedulerCore::validate(m_params.registers, partitions)) {
        if (key == "horizon") throw InputError("die.hjsd.horizon: " + message);
    }
    const hjsd::EngineSpec spec{params.queue_depth, partitions, m_params.registers};
    if (const auto problems = hjsd::engine_registry().check(params.impl, spec); !problems.empty()) {
        throw InputError("die.hjsd." + problems[0].first + ": " + problems[0].second);
    }
    m_engine = hjsd::engine_registry().make(params.impl, params.engine_params, spec);
    SC_THREAD(run);
}

void Hjsd::add_candidate(const hjsd::Candidate& c) {
    m_candidates.push_back(c);
    wake();
}

void Hjsd::op_start(uint64_t op_seq, uint64_t est) {
    m_op_starts.emplace_back(op_seq, est & hjsd::kEstMask);
    wake();
}

void Hjsd::prefetch_released(std::size_t partition, uint64_t bytes) {
    m_pending_credit.at(partition) += bytes;
    wake();
}

void Hjsd::issue_from_lanes() {
    m_lanes = true;
    for (uint32_t i = 0; i < m_params.sdma_outstanding; ++i) {
        sc_core::sc_spawn(sc_bind(&Hjsd::sdma_lane, this),
                          sc_core::sc_gen_unique_name("sdma_lane"));
    }
}

void Hjsd::sdma_lane() {
    try {
        while (true) {
            while (m_lane_queue.empty()) wait(m_lane_work);
            const hjsd::Request r = m_lane_queue.front();
            m_lane_queue.pop_front();
            const Picoseconds done = transport(r);
            --m_in_lanes;
            m_in_flight.push(done);
            wake();  // the port may be ready again
        }
    } catch (const sc_core::sc_unwind_exception&) {
        throw;
    } catch (...) {
        m_failures.fail(std::current_exception());
    }
}

void Hjsd::issue(const hjsd::Request& r) {
    if (m_lanes) {
        ++m_in_lanes;
        m_lane_queue.push_back(r);
        m_lane_work.notify(sc_core::SC_ZERO_TIME);
        return;
    }
    m_in_flight.push(transport(r));
}

Picoseconds Hjsd::transport(const hjsd::Request& r) {
    tlm::tlm_generic_payload* p = m_pool.acquire();
    p->set_command(tlm::TLM_READ_COMMAND);
    p->set_address(r.addr);
    p->set_data_length(static_cast<unsigned>(r.bytes));
    p->set_streaming_width(static_cast<unsigned>(r.bytes));
    TransactionInfo* info = info_of(*p);
    info->stream = StreamClass::kPrefetch;
    info->prefetch_target = StreamClass::kWeight;
    info->op_id = m_ledger ? m_ledger->id_of_seq(r.op_seq) : r.op_seq;
    info->ledger = m_ledger;
    info->engine = name();
    info->issue_time = sc_core::sc_time_stamp();
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    if (m_stage_target && r.partition == m_staging_pool) {
        m_stage_target->stage_transport(*p, delay);
    } else {
        l2_out->b_transport(*p, delay);
    }
    check_response(*p, name());
    p->release();
    return ClockDomain::to_ps(sc_core::sc_time_stamp() + delay);
}

void Hjsd::run() {
    // Both engines take exactly the same delta cycles (scheduler_engine.h), so the L2 sees the
    // prefetches in the same order relative to the other initiators whichever engine decides.
    const auto pad_deltas = [this](sc_dt::uint64 since, uint64_t deltas) {
        while (sc_core::sc_delta_count() - since < deltas) wait(sc_core::SC_ZERO_TIME);
    };
    try {
        const sc_dt::uint64 reset_start = sc_core::sc_delta_count();
        m_engine->reset();
        pad_deltas(reset_start, hjsd::kResetDeltas);
        while (true) {
            const Picoseconds now = ClockDomain::to_ps(sc_core::sc_time_stamp());
            while (!m_in_flight.empty() && m_in_flight.top() <= now) m_in_flight.pop();
            hjsd::Inputs in;
            if (!m_candidates.empty()) in.candidate = m_candidates.front();
            if (!m_op_starts.empty()) {
                in.op_start = m_op_starts.front().first;
                in.op_start_est = m_op_starts.front().second;
            }
            for (uint32_t i = 0; i < hjsd::kMaxPartitions; ++i) {
                const uint32_t p = (m_next_credit_partition + i) % hjsd::kMaxPartitions;
                if (m_pending_credit[p]) {
                    in.credit_return = std::make_pair(p, m_pending_credit[p]);
                    break;
                }
            }
            in.throttle = m_monitor.utilisation(now) > m_params.throttle_threshold;
            in.req_ready = m_in_flight.size() + m_in_lanes < m_params.sdma_outstanding;

            if (in.candidate) {
                if (const std::string why = m_engine->refuse(*in.candidate); !why.empty()) {
                    throw SimulationError("hjsd: candidate of op " +
                                          std::to_string(in.candidate->op_seq) + " (" +
                                          std::to_string(in.candidate->bytes) + " B) " + why);
                }
            }

            const uint64_t generation = m_input_generation;
            const sc_dt::uint64 evaluate_start = sc_core::sc_delta_count();
            const hjsd::Outputs out = m_engine->evaluate(in);
            pad_deltas(evaluate_start, hjsd::kEvaluateDeltas);
            // A candidate the full queue refuses changes nothing until the head issues or is
            // dropped (either keeps the engine stepping): it does not keep the engine awake. The
            // dispatcher reads up to 64 ops ahead, more candidates than the queue's 16 entries.
            const bool inputs_pending =
                (in.candidate && out.cand_ready) || in.op_start || in.credit_return;
            // Nothing can change until an input does: the queue is empty, or the head waits for
            // the window, op_start, a credit, the throttle or the port.
            if (!inputs_pending && !out.issued && !out.drop()) {
                if (m_input_generation != generation)
                    continue;  // an input came while the engine settled
                // Sleep until an input arrives, an SDMA slot frees, or the throttle may have
                // dropped.
                sc_core::sc_time timeout = sc_core::SC_ZERO_TIME;
                if (out.request && !in.req_ready && !m_in_flight.empty()) {
                    timeout =
                        ClockDomain::from_ps(m_in_flight.top() - now);  // (a lane wakes us itself)
                } else if (in.throttle) {
                    timeout = ClockDomain::from_ps(m_monitor.window_ps() / 8);
                }
                if (timeout > sc_core::SC_ZERO_TIME) {
                    wait(timeout, m_input);
                } else {
                    wait(m_input);
                }
                // Re-align to the clock: the block samples its inputs on an edge.
                const Picoseconds t = ClockDomain::to_ps(sc_core::sc_time_stamp());
                const Picoseconds edge = m_clock.cycles_to_ps(m_clock.ps_to_cycles_ceil(t));
                if (edge > t) wait(ClockDomain::from_ps(edge - t));
                continue;
            }

            m_engine->clock();
            ++m_stats.active_cycles;
            if (in.candidate && out.cand_ready) m_candidates.pop_front();
            if (in.op_start) m_op_starts.pop_front();
            if (in.credit_return) {
                m_pending_credit[in.credit_return->first] = 0;
                m_next_credit_partition = (in.credit_return->first + 1) % hjsd::kMaxPartitions;
            }
            if (out.issued) issue(*out.request);
            const Picoseconds next_edge = m_clock.cycles_to_ps(m_clock.ps_to_cycles_floor(now) + 1);
            wait(ClockDomain::from_ps(next_edge - now));
        }
    } catch (const sc_core::sc_unwind_exception&) {
        throw;  // the kernel unwinding this thread
    } catch (...) {
        m_failures.fail(std::current_exception());
    }
}

void Hjsd::finalize_stats() {
    const hjsd::Counters c = m_engine->counters();
    m_stats.issued_chunks.set(c.issued_chunks);
    m_stats.issued_bytes.set(c.issued_bytes);
    m_stats.late_drops.set(c.late_drops);
    m_stats.oversize_drops.set(c.oversize_drops);
    m_stats.credit_stalls.set(c.credit_stalls);
    m_stats.throttle_stalls.set(c.throttle_stalls);
    m_stats.port_stalls.set(c.port_stalls);
    m_stats.candidates.set(c.candidates_accepted);
}

}  // namespace asim
