#include "models/chip/hjsd/hjsd.h"

#include <algorithm>

#include "models/common/errors.h"

namespace asim {

std::vector<std::pair<std::string, std::string>> HjsdParams::validate() const {
    auto problems = hjsd::PrefetchSchedulerCore::validate(registers, hjsd::kMaxPartitions);
    if (queue_depth == 0) problems.emplace_back("queue_depth", "must be at least 1");
    if (sdma_outstanding == 0) problems.emplace_back("sdma_outstanding", "must be at least 1");
    if (!(throttle_threshold > 0)) problems.emplace_back("throttle.threshold", "must be greater than zero");
    if (throttle_window_ps <= 0) problems.emplace_back("throttle.window", "must be greater than zero");
    if (impl != "tlm") problems.emplace_back("impl", "unknown implementation '" + impl + "' (use tlm)");
    return problems;
}

Hjsd::Hjsd(sc_core::sc_module_name name, const HjsdParams& params, uint32_t partitions,
           const ClockDomain& clock, HbmLoadMonitor& monitor, StatsRegistry& stats, FailureSink& failures)
    : sc_module(name),
      l2_out("l2_out"),
      m_params(params),
      m_core(params.queue_depth, partitions, params.registers),
      m_clock(clock),
      m_monitor(monitor),
      m_failures(failures),
      m_stats{stats.counter(std::string(this->name()) + ".issued_chunks", "prefetch requests issued"),
              stats.counter(std::string(this->name()) + ".issued_bytes", "bytes prefetched", "B"),
              stats.counter(std::string(this->name()) + ".late_drops", "candidates dropped: their op had started"),
              stats.counter(std::string(this->name()) + ".credit_stalls", "cycles the head waited for partition credit", "cycles"),
              stats.counter(std::string(this->name()) + ".throttle_stalls", "cycles the head waited for HBM load to drop", "cycles"),
              stats.counter(std::string(this->name()) + ".port_stalls", "cycles the head waited for a free SDMA slot", "cycles"),
              stats.counter(std::string(this->name()) + ".candidates", "candidates accepted"),
              stats.counter(std::string(this->name()) + ".active_cycles", "cycles the core was stepped", "cycles")} {
    SC_THREAD(run);
}

void Hjsd::add_candidate(const hjsd::Candidate& c) {
    m_candidates.push_back(c);
    wake();
}

void Hjsd::op_start(uint64_t op_seq) {
    m_op_starts.push_back(op_seq);
    wake();
}

void Hjsd::prefetch_released(std::size_t partition, uint64_t bytes) {
    m_pending_credit.at(partition) += bytes;
    wake();
}

void Hjsd::issue(const hjsd::Request& r) {
    tlm::tlm_generic_payload* p = m_pool.acquire();
    p->set_command(tlm::TLM_READ_COMMAND);
    p->set_address(r.addr);
    p->set_data_length(static_cast<unsigned>(r.bytes));
    p->set_streaming_width(static_cast<unsigned>(r.bytes));
    TransactionInfo* info = info_of(*p);
    info->stream = StreamClass::kPrefetch;
    info->prefetch_target = StreamClass::kWeight;
    info->op_id = r.op_seq;
    info->engine = name();
    info->issue_time = sc_core::sc_time_stamp();
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    l2_out->b_transport(*p, delay);
    check_response(*p, name());
    p->release();
    m_in_flight.push(ClockDomain::to_ps(sc_core::sc_time_stamp() + delay));
}

void Hjsd::run() {
    try {
        while (true) {
            const Picoseconds now = ClockDomain::to_ps(sc_core::sc_time_stamp());
            while (!m_in_flight.empty() && m_in_flight.top() <= now) m_in_flight.pop();
            hjsd::Inputs in;
            if (!m_candidates.empty()) in.candidate = m_candidates.front();
            if (!m_op_starts.empty()) in.op_start = m_op_starts.front();
            for (uint32_t i = 0; i < hjsd::kMaxPartitions; ++i) {
                const uint32_t p = (m_next_credit_partition + i) % hjsd::kMaxPartitions;
                if (m_pending_credit[p]) {
                    in.credit_return = std::make_pair(p, m_pending_credit[p]);
                    break;
                }
            }
            in.throttle = m_monitor.utilisation(now) > m_params.throttle_threshold;
            in.req_ready = m_in_flight.size() < m_params.sdma_outstanding;

            const bool inputs_pending = in.candidate || in.op_start || in.credit_return;
            if (!inputs_pending && m_core.idle_until_input(in)) {
                // Sleep until an input arrives, an SDMA slot frees, or the throttle may have dropped.
                const hjsd::Outputs out = m_core.peek(in);
                sc_core::sc_time timeout = sc_core::SC_ZERO_TIME;
                if (out.request && !in.req_ready) {
                    timeout = ClockDomain::from_ps(m_in_flight.top() - now);
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

            const hjsd::Outputs out = m_core.step(in);
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
    const hjsd::Counters& c = m_core.counters();
    m_stats.issued_chunks.set(c.issued_chunks);
    m_stats.issued_bytes.set(c.issued_bytes);
    m_stats.late_drops.set(c.late_drops);
    m_stats.credit_stalls.set(c.credit_stalls);
    m_stats.throttle_stalls.set(c.throttle_stalls);
    m_stats.port_stalls.set(c.port_stalls);
    m_stats.candidates.set(c.candidates_accepted);
}

}  // namespace asim
