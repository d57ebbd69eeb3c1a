// sc_spawn (the issue lanes) needs this before SystemC is first included.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "testbenches/mem_replay/l2_replay_bench.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/common/errors.h"
#include "models/common/kernel.h"
#include "models/interconnect/noc/on_die_network.h"

namespace asim {

namespace {
// The replay drives the L2 and the die's HBM only (no memory pool): addresses beyond the HBM are
// bad input.
L2Params hbm_only(L2Params l2, const HbmParams& hbm) {
    l2.address_space_bytes = hbm.capacity_bytes();
    return l2;
}
}  // namespace

L2ReplayBench::L2ReplayBench(sc_core::sc_module_name name, const DieParams& die,
                             StatsRegistry& stats, std::vector<L2ReplayPhase> phases)
    : sc_module(name),
      l2_out("l2_out"),
      m_memory(make_l2_and_hbm(hbm_only(die.l2, die.hbm), die.hbm, stats)),
      m_clock(std::string(this->name()) + ".l2.clock", die.l2.clock_hz),
      m_phases(std::move(phases)),
      m_results(m_phases.size()) {
    l2_out.bind(m_memory.l2->core_in);
    // The requests come from an average core: per slice, the mean over the cores of their
    // distances to it (what the die's network would add for each core, averaged).
    if (die.noc) {
        const NocRoutes routes(*die.noc, die.ai_cores, die.l2.slices, die.hbm.device.org.stacks);
        const ClockDomain core_clock("noc", die.clock_hz);
        std::vector<Picoseconds> to_slices;
        for (double hops : routes.mean_hops_to_slices())
            to_slices.push_back(OnDieNetwork::hop_latency(*die.noc, core_clock, hops));
        m_route = OnDieNetwork::slice_distances(std::move(to_slices));
        m_memory.l2->set_hbm_distance(
            OnDieNetwork::hop_latency(*die.noc, core_clock, routes.mean_hops_slice_to_hbm()));
    }
    SC_HAS_PROCESS(L2ReplayBench);
    SC_THREAD(drive);
}

void L2ReplayBench::run() {
    run_kernel();
    if (m_error) std::rethrow_exception(m_error);
    if (!m_input_error.empty()) throw InputError(m_input_error);
}

void L2ReplayBench::finalize_stats() {
    m_memory.l2->finalize_stats();
    m_memory.hbm->finalize_stats();
}

void L2ReplayBench::drive() {
    // An exception must not escape a SystemC process (the kernel would turn it into its own
    // report): keep it for run() to rethrow, and stop the kernel, whose HBM may still be ticking.
    try {
        for (std::size_t i = 0; i < m_phases.size() && m_input_error.empty(); ++i)
            run_phase(m_phases[i], m_results[i]);
    } catch (...) {
        m_error = std::current_exception();
    }
    sc_core::sc_stop();
}

void L2ReplayBench::run_phase(const L2ReplayPhase& phase, L2PhaseResult& r) {
    const L2Cache& l2 = *m_memory.l2;
    const HbmModel& hbm = *m_memory.hbm;
    const uint64_t capacity = l2.params().address_space_bytes;
    const uint64_t hits0 = l2.hits(), misses0 = l2.misses();
    const uint64_t hbm_read0 = hbm.read_bytes(), hbm_write0 = hbm.write_bytes();
    const Cycles base = m_last_done == 0 ? 0 : m_clock.ps_to_cycles_ceil(m_last_done) + 1;
    Cycles cycle = base;    // the cycle requests are entering in
    uint64_t in_cycle = 0;  // how many have entered in it
    MemRecord rec;
    while (phase.next(rec, m_input_error)) {
        if (rec.addr >= capacity || phase.request_bytes > capacity - rec.addr) {
            m_input_error =
                fmt::format("{}: address {:#x} + {} B is beyond the memory capacity ({} B)",
                            phase.where(), rec.addr, phase.request_bytes, capacity);
            return;
        }
        const Cycles wanted = base + rec.cycle;
        Cycles issue = std::max(wanted, cycle);
        if (issue == cycle && phase.issue_cap != 0 && in_cycle >= phase.issue_cap) ++issue;
        if (issue != cycle) {
            cycle = issue;
            in_cycle = 0;
        }
        ++in_cycle;
        const Picoseconds t = m_clock.cycles_to_ps(issue);
        const Picoseconds now = ClockDomain::to_ps(sc_core::sc_time_stamp());
        if (t > now) wait(ClockDomain::from_ps(t - now));
        if (!hbm.waits()) {
            transact({rec, issue, wanted, base, &phase, &r});  // the L2 returns at once
            continue;
        }
        // Behind a memory that waits, the call returns at the completion: each request goes
        // on a lane of its own so that they are in flight together, as the die's engines keep
        // them, at most one per MSHR; with every lane busy the record enters when one frees.
        if (m_idle_lanes.empty() && m_lanes.size() >= l2.params().mshrs) {
            while (m_idle_lanes.empty()) wait(m_lane_freed);
            const Cycles now_cycle =
                m_clock.ps_to_cycles_ceil(ClockDomain::to_ps(sc_core::sc_time_stamp()));
            if (now_cycle > cycle) {
                cycle = issue = now_cycle;
                in_cycle = 1;
            }
        }
        const Request req{rec, issue, wanted, base, &phase, &r};
        if (m_idle_lanes.empty()) {
            m_lanes.emplace_back();
            const auto lane = static_cast<uint32_t>(m_lanes.size() - 1);
            sc_core::sc_spawn(sc_bind(&L2ReplayBench::lane, this, lane),
                              sc_core::sc_gen_unique_name("issue_lane"));
            m_lanes[lane].request = req;
            m_lanes[lane].busy = true;  // starts with its first request: no notify needed
        } else {
            const uint32_t lane = m_idle_lanes.back();
            m_idle_lanes.pop_back();
            m_lanes[lane].request = req;
            m_lanes[lane].busy = true;
            m_lanes[lane].go.notify(sc_core::SC_ZERO_TIME);
        }
        ++m_busy_lanes;
    }
    while (m_busy_lanes != 0) wait(m_lane_freed);  // the phase ends when its last request is done
    r.l2_hits = l2.hits() - hits0;
    r.l2_misses = l2.misses() - misses0;
    r.hbm_read_bytes = hbm.read_bytes() - hbm_read0;
    r.hbm_write_bytes = hbm.write_bytes() - hbm_write0;
}

void L2ReplayBench::transact(const Request& q) {
    tlm::tlm_generic_payload* p = m_pool.acquire();
    p->set_command(q.rec.is_write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    p->set_address(q.rec.addr);
    p->set_data_ptr(nullptr);
    p->set_data_length(static_cast<unsigned>(q.phase->request_bytes));
    p->set_streaming_width(static_cast<unsigned>(q.phase->request_bytes));
    p->set_byte_enable_ptr(nullptr);
    p->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    info_of(*p)->stream = q.phase->stream;
    if (!m_route.one_way.empty()) info_of(*p)->noc_route = &m_route;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    l2_out->b_transport(*p, delay);
    check_response(*p, name());
    p->release();

    // The call may have waited (a memory that waits): the completion is the time it returned at
    // plus the delay it annotated.
    const Picoseconds done = ClockDomain::to_ps(sc_core::sc_time_stamp() + delay);
    m_last_done = std::max(m_last_done, done);
    const Cycles done_cycle = m_clock.ps_to_cycles_ceil(done);
    L2PhaseResult& r = *q.result;
    ++r.requests;
    r.bytes += q.phase->request_bytes;
    r.total_cycles = std::max<uint64_t>(r.total_cycles, done_cycle - q.base);
    r.completions.add(done_cycle - q.base);
    if (q.rec.is_write) {
        ++r.writes;
    } else {
        ++r.reads;
        r.read_from_trace.add(done_cycle - q.wanted);
        r.read_from_accept.add(done_cycle - q.issue);
    }
}

void L2ReplayBench::lane(uint32_t index) {
    try {
        for (;;) {
            while (!m_lanes[index].busy) wait(m_lanes[index].go);
            const Request request = m_lanes[index].request;  // m_lanes may grow during the call
            transact(request);
            m_lanes[index].busy = false;
            m_idle_lanes.push_back(index);
            --m_busy_lanes;
            m_lane_freed.notify(sc_core::SC_ZERO_TIME);
        }
    } catch (...) {
        if (!m_error) m_error = std::current_exception();
        sc_core::sc_stop();
    }
}

}  // namespace asim

namespace asim {

nlohmann::json l2_replay_summary(const L2PhaseResult& r, uint64_t clock_hz,
                                 double peak_bytes_per_s) {
    const double cycle_s = 1.0 / static_cast<double>(clock_hz);
    const double mean_bytes =
        r.requests ? static_cast<double>(r.bytes) / static_cast<double>(r.requests) : 0.0;
    const double bw = r.total_cycles ? static_cast<double>(r.bytes) /
                                           (static_cast<double>(r.total_cycles) * cycle_s) * 1e-9
                                     : 0.0;
    // Steady state: the requests completing between the 10th and 90th percentile completions,
    // which leaves out the ramp-up and the drain.
    const uint64_t t10 = r.completions.cycle_of_fraction(0.1),
                   t90 = r.completions.cycle_of_fraction(0.9);
    const double steady_n = std::floor(0.9 * static_cast<double>(r.requests)) -
                            std::floor(0.1 * static_cast<double>(r.requests));
    const double steady =
        t90 > t10 ? steady_n * mean_bytes / (static_cast<double>(t90 - t10) * cycle_s) * 1e-9 : bw;
    const uint64_t accesses = r.l2_hits + r.l2_misses;
    return {
        {"requests", r.requests},
        {"reads", r.reads},
        {"writes", r.writes},
        {"bytes", r.bytes},
        {"clock_hz", clock_hz},
        {"total_cycles", r.total_cycles},
        {"bandwidth_gbps", bw},
        {"steady_bandwidth_gbps", steady},
        {"peak_bandwidth_gbps", peak_bytes_per_s * 1e-9},
        {"read_latency_mean_cycles", r.read_from_trace.mean()},
        {"read_latency_p50_cycles", r.read_from_trace.percentile(0.5)},
        {"read_latency_p95_cycles", r.read_from_trace.percentile(0.95)},
        {"read_latency_p99_cycles", r.read_from_trace.percentile(0.99)},
        {"read_latency_max_cycles", r.read_from_trace.max()},
        {"read_latency_from_accept_mean_cycles", r.read_from_accept.mean()},
        {"read_latency_from_accept_p50_cycles", r.read_from_accept.percentile(0.5)},
        {"read_latency_from_accept_p95_cycles", r.read_from_accept.percentile(0.95)},
        {"read_latency_from_accept_p99_cycles", r.read_from_accept.percentile(0.99)},
        {"read_latency_from_accept_max_cycles", r.read_from_accept.max()},
        {"l2_hits", r.l2_hits},
        {"l2_misses", r.l2_misses},
        {"l2_hit_rate",
         accesses ? static_cast<double>(r.l2_hits) / static_cast<double>(accesses) : 0.0},
        {"hbm_read_bytes", r.hbm_read_bytes},
        {"hbm_write_bytes", r.hbm_write_bytes},
    };
}

}  // namespace asim
