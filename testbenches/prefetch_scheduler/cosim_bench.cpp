#include "testbenches/prefetch_scheduler/cosim_bench.h"

#include <chrono>
#include <cstdio>
#include <deque>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

#include <systemc>

#include "models/chip/hjsd/scheduler_engine.h"
#include "models/common/atomic_output.h"
#include "models/common/errors.h"
#include "models/common/kernel.h"
#include "testbenches/prefetch_scheduler/stimulus.h"

namespace asim::cosim {

namespace {

using hjsd::Inputs;
using hjsd::Outputs;
using hjsd::Registers;
using hjsd::Request;

std::string format_request(const Request& r) {
    char s[176];
    std::snprintf(s, sizeof s, "op %llu addr 0x%llx bytes %llu part %u tier %u",
                  static_cast<unsigned long long>(r.op_seq),
                  static_cast<unsigned long long>(r.addr), static_cast<unsigned long long>(r.bytes),
                  r.partition, r.tier);
    return s;
}

std::string format_inputs(const Inputs& in) {
    std::ostringstream s;
    if (in.candidate) {
        s << "cand{op " << in.candidate->op_seq << " 0x" << std::hex << in.candidate->addr
          << std::dec << " " << in.candidate->bytes << "B p" << in.candidate->partition << " t"
          << in.candidate->tier << " est " << in.candidate->est << "} ";
    }
    if (in.op_start) s << "op_start " << *in.op_start << " est " << in.op_start_est << " ";
    if (in.credit_return)
        s << "credit{p" << in.credit_return->first << " +" << in.credit_return->second << "} ";
    if (in.throttle) s << "throttle ";
    if (!in.req_ready) s << "!req_ready ";
    return s.str();
}

std::string format_outputs(const Outputs& o) {
    std::ostringstream s;
    s << (o.cand_ready ? "rdy" : "FULL");
    if (o.request) s << (o.issued ? " ISSUE " : " valid ") << format_request(*o.request);
    if (o.late_drop) s << " drop";
    if (o.oversize_drop) s << " drop-oversize";
    return s.str();
}

std::string format_registers(const Registers& r) {
    std::ostringstream s;
    s << "regs{enable " << r.enable << " depth " << r.prefetch_depth << " chunk " << r.chunk_bytes
      << " limits";
    for (uint64_t l : r.credit_limit) s << " " << l;
    s << " horizon " << r.horizon << "}";
    return s.str();
}

class CosimBench : public sc_core::sc_module {
public:
    CosimBench(sc_core::sc_module_name name, const CosimOptions& options, Stimulus& stimulus)
        : sc_module(name),
          m_options(options),
          m_stimulus(stimulus),
          m_regs(stimulus.initial_registers()),
          m_ref(rtl::RtlBuild::kQueueDepth, rtl::RtlBuild::kPartitions, m_regs),
          m_rtl("dut", m_regs, options.variant, options.waves) {
        SC_THREAD(run);
    }

    CosimResult& result() { return m_result; }

private:
    SC_HAS_PROCESS(CosimBench);

    struct CycleRecord {
        uint64_t cycle;
        Inputs in;
        std::optional<Registers> regs;
        Outputs ref, rtl;
    };
    struct Issue {
        uint64_t cycle;
        Request request;
    };

    void run() {
        const sc_core::sc_time half(500, sc_core::SC_PS);
        // Both out of reset with the initial registers, as the chip does (hjsd.cpp), before the
        // stimulus may write others in cycle 0: the core took its credits from them when built,
        // and the RTL loads them from the limits on its pins at the reset edge.
        m_ref.reset();
        m_rtl.reset();
        uint64_t cycle = 0;
        for (; cycle < m_options.cycles; ++cycle) {
            if (m_stimulus.done(m_ref.core().queued())) break;
            Inputs in;
            std::optional<Registers> regs;
            m_stimulus.drive(cycle, in, regs);
            if (regs) {
                m_result.coverage.register_write(m_regs, *regs);
                m_regs = *regs;
                m_ref.set_registers(*regs);
                m_rtl.set_registers(*regs);
            }
            const hjsd::Counters before = m_ref.counters();
            const std::size_t queued_before = m_ref.core().queued();
            const std::optional<hjsd::Candidate> head =
                m_ref.core().head() ? std::optional(*m_ref.core().head()) : std::nullopt;
            std::vector<uint64_t> credit(rtl::RtlBuild::kPartitions);
            for (uint32_t p = 0; p < credit.size(); ++p) credit[p] = m_ref.core().credit(p);

            const Outputs ref = m_ref.evaluate(in);
            Outputs got;
            try {
                got = m_rtl.evaluate(in);  // throws when the last edge failed an assertion
            } catch (const SimulationError& e) {
                assertion(cycle, e.what());
                break;
            }
            m_history.push_back({cycle, in, regs, ref, got});
            if (m_history.size() > m_options.context + 1) m_history.pop_front();
            if (m_options.scoreboard && !check(cycle, ref, got)) break;

            m_ref.clock();
            m_rtl.clock();
            m_result.coverage.sample(in, ref, m_regs, before, m_ref.counters(),
                                     head ? &*head : nullptr, queued_before, m_ref.core().queued(),
                                     credit);
            m_stimulus.observe(cycle, in, ref);
            wait(half);  // waveforms: the inputs and the outputs they produce, clock low
            wait(half);  // the edge, clock high
        }
        m_result.cycles = cycle;
        if (m_result.mismatch.empty()) {
            try {
                m_rtl.check_assertions();  // the last edge
            } catch (const SimulationError& e) {
                assertion(cycle, e.what());
            }
        }
        if (m_result.mismatch.empty() && m_options.scoreboard) final_check(cycle);
        m_result.passed = m_result.mismatch.empty();
        m_result.reference = m_ref.counters();
        m_result.rtl = m_rtl.counters();
        m_result.issued = m_result.reference.issued_chunks;
        sc_core::sc_stop();
    }

    // Per-cycle checks; false (and the report written) at the first mismatch.
    bool check(uint64_t cycle, const Outputs& ref, const Outputs& got) {
        std::string what;
        if (ref.cand_ready != got.cand_ready) {
            what = std::string("cand_ready: reference ") + (ref.cand_ready ? "1" : "0") + ", RTL " +
                   (got.cand_ready ? "1" : "0");
        } else if (ref.late_drop != got.late_drop) {
            what = std::string("late drop: reference ") + (ref.late_drop ? "drops" : "keeps") +
                   " the head, RTL " + (got.late_drop ? "drops" : "keeps") + " it";
        } else if (ref.oversize_drop != got.oversize_drop) {
            what = std::string("oversize drop: reference ") +
                   (ref.oversize_drop ? "drops" : "keeps") + " the head, RTL " +
                   (got.oversize_drop ? "drops" : "keeps") + " it";
        }
        if (ref.issued) m_expected.push_back({cycle, *ref.request});
        if (got.issued) m_actual.push_back({cycle, *got.request});
        while (what.empty() && !m_expected.empty() && !m_actual.empty()) {
            const Issue& e = m_expected.front();
            const Issue& a = m_actual.front();
            if (!(e.request == a.request)) {
                what = "request #" + std::to_string(m_matched) + ": reference " +
                       format_request(e.request) + " (cycle " + std::to_string(e.cycle) +
                       "), RTL " + format_request(a.request) + " (cycle " +
                       std::to_string(a.cycle) + ")";
            } else if ((e.cycle > a.cycle ? e.cycle - a.cycle : a.cycle - e.cycle) >
                       kIssueCycleTolerance) {
                what = "request #" + std::to_string(m_matched) + " " + format_request(e.request) +
                       ": issued at cycle " + std::to_string(e.cycle) + " by the reference, " +
                       std::to_string(a.cycle) + " by the RTL (tolerance " +
                       std::to_string(kIssueCycleTolerance) + ")";
            } else {
                m_expected.pop_front();
                m_actual.pop_front();
                ++m_matched;
            }
        }
        if (what.empty()) {
            for (const auto* side : {&m_expected, &m_actual}) {
                if (!side->empty() && side->front().cycle + kIssueCycleTolerance <= cycle) {
                    const bool ref_side = side == &m_expected;
                    what = "request #" + std::to_string(m_matched) + ": " +
                           (ref_side ? "reference" : "RTL") + " issued " +
                           format_request(side->front().request) + " at cycle " +
                           std::to_string(side->front().cycle) + ", the " +
                           (ref_side ? "RTL" : "reference") + " nothing within " +
                           std::to_string(kIssueCycleTolerance) + " cycles";
                }
            }
        }
        if (what.empty()) return true;
        report(cycle, what);
        return false;
    }

    void final_check(uint64_t cycle) {
        const hjsd::Counters r = m_ref.counters(), g = m_rtl.counters();
        const std::pair<const char*, std::pair<uint64_t, uint64_t>> pairs[] = {
            {"issued_chunks", {r.issued_chunks, g.issued_chunks}},
            {"issued_bytes", {r.issued_bytes, g.issued_bytes}},
            {"late_drops", {r.late_drops, g.late_drops}},
            {"oversize_drops", {r.oversize_drops, g.oversize_drops}},
            {"credit_stalls", {r.credit_stalls, g.credit_stalls}},
            {"throttle_stalls", {r.throttle_stalls, g.throttle_stalls}},
            {"port_stalls", {r.port_stalls, g.port_stalls}},
            {"window_waits", {r.window_waits, g.window_waits}},
            {"candidates", {r.candidates_accepted, g.candidates_accepted}},
            {"queued", {m_ref.core().queued(), m_rtl.queued()}},
        };
        std::string what;
        for (const auto& [name, v] : pairs) {
            if (v.first != v.second) {
                what += std::string(what.empty() ? "" : "; ") + "counter " + name + ": reference " +
                        std::to_string(v.first) + ", RTL " + std::to_string(v.second);
            }
        }
        if (!what.empty()) report(cycle, what);
    }

    // The bound checker failed at the edge that ended the cycle before `cycle`.
    void assertion(uint64_t cycle, const std::string& what) {
        m_result.assertion_failed = true;
        report(cycle, what,
               "ASSERTION at the edge ending cycle " + std::to_string(cycle > 0 ? cycle - 1 : 0));
    }

    void report(uint64_t cycle, const std::string& what, const std::string& heading = "") {
        std::ostringstream s;
        s << (heading.empty() ? "MISMATCH at cycle " + std::to_string(cycle) : heading) << ": "
          << what << "\n";
        s << "  stimulus and responses before it (" << m_stimulus.describe() << "; "
          << format_registers(m_regs) << "):\n";
        for (const CycleRecord& c : m_history) {
            s << "  cycle " << c.cycle << ": " << format_inputs(c.in);
            if (c.regs) s << format_registers(*c.regs);
            s << "\n      reference: " << format_outputs(c.ref)
              << "\n      RTL:       " << format_outputs(c.rtl) << "\n";
        }
        const auto list = [&s](const char* who, const std::deque<Issue>& q) {
            s << "  " << who << " requests not matched:";
            if (q.empty()) s << " none";
            for (std::size_t i = 0; i < q.size() && i < 4; ++i) {
                s << "\n    cycle " << q[i].cycle << ": " << format_request(q[i].request);
            }
            s << "\n";
        };
        list("reference", m_expected);
        list("RTL", m_actual);
        // The reference's state going into the mismatching cycle (the RTL's is in the waveforms).
        const hjsd::PrefetchSchedulerCore& core = m_ref.core();
        s << "  reference state: current "
          << (core.has_current() ? std::to_string(core.current_op()) : "-1") << ", "
          << core.queued() << " queued (RTL " << m_rtl.queued() << "), credits";
        for (uint32_t p = 0; p < rtl::RtlBuild::kPartitions; ++p) s << " " << core.credit(p);
        if (const hjsd::Candidate* h = core.head()) {
            s << ", head op " << h->op_seq << " 0x" << std::hex << h->addr << std::dec << " "
              << h->bytes << "B p" << h->partition << " t" << h->tier;
        }
        s << "\n";
        m_result.mismatch = s.str();
    }

    const CosimOptions& m_options;
    Stimulus& m_stimulus;
    Registers m_regs;
    hjsd::CoreEngine m_ref;
    rtl::PrefetchSchedulerRtl m_rtl;
    std::deque<CycleRecord> m_history;
    std::deque<Issue> m_expected, m_actual;
    uint64_t m_matched = 0;
    CosimResult m_result;
};

}  // namespace

CosimResult run_cosim(const CosimOptions& given) {
    CosimOptions options = given;
    if (options.cycles == 0) throw InputError("cosim: --cycles must be at least 1");
    if (!options.scoreboard && !options.assertions) {
        throw InputError(
            "cosim: --no-scoreboard and --no-assertions leave nothing to judge the RTL");
    }
    if (!options.scoreboard && !rtl::has_assertions()) {
        throw InputError(
            "cosim: --no-scoreboard: this build has no assertions (configure with "
            "-DASIM_RTL_ASSERTIONS=ON)");
    }
    if (options.variant == rtl::RtlVariant::kInjectedBug && !rtl::has_bug_variant()) {
        throw InputError(
            "cosim: this build has no bug-injected RTL variant (configure with "
            "-DASIM_RTL_BUG_VARIANT=ON)");
    }
    // The waveform file is written beside its name and renamed over it at the end: only a regular
    // file is ever replaced, never a FIFO, device or symbolic link (a device such as /dev/full
    // would stall the dumper's flush).
    std::optional<AtomicOutputFile> waves;
    if (!options.waves.empty()) {
        waves.emplace(options.waves, "--waves");
        options.waves = waves->temporary();
    }
    std::unique_ptr<Stimulus> stimulus = options.trace.empty()
                                             ? make_random_stimulus(options.seed)
                                             : make_trace_stimulus(options.trace, options.seed);
    const auto problems = rtl::check_rtl_fit(
        stimulus->initial_registers(), rtl::RtlBuild::kQueueDepth, rtl::RtlBuild::kPartitions);
    if (!problems.empty())
        throw InputError("cosim: " + problems[0].first + ": " + problems[0].second);
    rtl::set_assertions(options.assertions);
    auto bench = std::make_unique<CosimBench>("cosim", options, *stimulus);
    const auto t0 = std::chrono::steady_clock::now();
    run_kernel();
    CosimResult result = bench->result();
    result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    result.stimulus = stimulus->describe();
    bench.reset();  // the dumper closes its file
    // A write that failed (a full disk) while the waveforms were flushed or closed: the temporary
    // file is removed, nothing half-written takes the name.
    if (!rtl::verilator_fatal_message().empty()) {
        throw SimulationError(
            "cosim: " + (waves ? "cannot write the waveforms to " + waves->path() + ": " : "") +
            rtl::verilator_fatal_message());
    }
    if (waves) waves->commit();
    return result;
}

}  // namespace asim::cosim
