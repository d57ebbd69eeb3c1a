// The transactor and the pimpl around the Verilated models (good and bug-injected variants share
// the port list, so one template binds either).
#include "rtl/prefetch_scheduler/prefetch_scheduler_rtl.h"

#include <stdexcept>
#include <string>

#include <verilated.h>
#include <verilated_vcd_sc.h>

#include "Vprefetch_scheduler.h"
#ifdef ASIM_RTL_HAS_BUG_VARIANT
#include "Vprefetch_scheduler_bug.h"
#endif
#include "models/common/errors.h"

namespace asim::rtl {

namespace {
// Verilator's fatal hook is one function for the process (its API), so its message is kept in
// one place too.
std::string& fatal_message() {
    static std::string message;
    return message;
}
}  // namespace

std::string verilator_fatal_message() { return fatal_message(); }

namespace {
constexpr uint64_t mask(uint32_t bits) {
    return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}
constexpr uint32_t kLimitBits = RtlBuild::kPartitions * RtlBuild::kCreditBits;
}  // namespace

bool has_bug_variant() {
#ifdef ASIM_RTL_HAS_BUG_VARIANT
    return true;
#else
    return false;
#endif
}

bool has_assertions() {
#ifdef ASIM_RTL_HAS_ASSERTIONS
    return true;
#else
    return false;
#endif
}

void set_assertions(bool on) { Verilated::threadContextp()->assertOn(on); }

}  // namespace asim::rtl

// Verilator's runtime is built with VL_USER_FATAL (rtl/CMakeLists.txt): this replaces its
// vl_fatal, which would flush every trace from inside a failing flush (a deadlock) and abort.
void vl_fatal(const char* filename, int linenum, const char* /*hier*/, const char* msg) {
    std::string& kept = asim::rtl::fatal_message();
    if (!kept.empty()) return;  // the first one says what went wrong
    kept = (filename && filename[0])
               ? std::string(filename) + ":" + std::to_string(linenum) + ": " + msg
               : msg;
    Verilated::threadContextp()->gotFinish(true);
}

namespace asim::rtl {

std::vector<std::pair<std::string, std::string>> check_rtl_fit(const hjsd::Registers& r,
                                                               uint32_t queue_depth,
                                                               uint32_t partitions) {
    std::vector<std::pair<std::string, std::string>> problems;
    const std::string built = " (the RTL is built for ";
    if (r.prefetch_depth > RtlBuild::kMaxDepth) {
        problems.emplace_back("prefetch_depth",
                              "must be at most " + std::to_string(RtlBuild::kMaxDepth) + built +
                                  "MAX_DEPTH=" + std::to_string(RtlBuild::kMaxDepth) + ")");
    }
    if (queue_depth != RtlBuild::kQueueDepth) {
        problems.emplace_back("queue_depth", "must be " + std::to_string(RtlBuild::kQueueDepth) +
                                                 " with impl: rtl" + built + "QUEUE_DEPTH=" +
                                                 std::to_string(RtlBuild::kQueueDepth) + ")");
    }
    if (partitions > RtlBuild::kPartitions) {
        problems.emplace_back("partitions", std::to_string(partitions) + " partitions" + built +
                                                "NPART=" + std::to_string(RtlBuild::kPartitions) +
                                                ")");
    }
    if (r.chunk_bytes > mask(RtlBuild::kLenBits - 1) + 1 || r.chunk_bytes == 0) {
        problems.emplace_back(
            "chunk", "does not fit the " + std::to_string(RtlBuild::kLenBits) + "-bit chunk port");
    }
    if (r.horizon > mask(RtlBuild::kEstBits)) {
        problems.emplace_back("horizon", "does not fit the " + std::to_string(RtlBuild::kEstBits) +
                                             "-bit horizon port");
    }
    for (uint32_t p = 0; p < hjsd::kMaxPartitions; ++p) {
        if (r.credit_limit[p] > mask(RtlBuild::kCreditBits)) {
            problems.emplace_back("credits",
                                  "partition " + std::to_string(p) + " limit does not fit the " +
                                      std::to_string(RtlBuild::kCreditBits) + "-bit credit port");
        }
    }
    return problems;
}

static_assert(RtlBuild::kEstBits == hjsd::kEstBits,
              "the horizon's clock wraps at the same width in the block and the core");

bool candidate_fits(const hjsd::Candidate& c) {
    return c.op_seq <= mask(RtlBuild::kSeqBits) && c.bytes <= mask(RtlBuild::kLenBits) &&
           c.partition < RtlBuild::kPartitions && c.tier <= mask(RtlBuild::kTierBits) &&
           c.est <= mask(RtlBuild::kEstBits);
}

std::string PrefetchSchedulerRtl::refuse(const hjsd::Candidate& c) const {
    return candidate_fits(c) ? "" : "does not fit the RTL ports";
}

// The RTL as an engine of the chip's H-JSD (`die.hjsd.impl: rtl`), registered here so that the
// chip's model does not depend on Verilator.
ASIM_REGISTER(
    hjsd::engine_registry(), rtl,
    "the Verilated RTL block (rtl/prefetch_scheduler/prefetch_scheduler.sv) behind a transactor",
    {},
    [](const ParamValues&, const hjsd::EngineSpec& spec) {
        return std::make_unique<PrefetchSchedulerRtl>("engine", spec.registers);
    },
    [](const hjsd::EngineSpec& spec) {
        return check_rtl_fit(spec.registers, spec.queue_depth, spec.partitions);
    });

// The pin-level signals; the model behind them is one of the variants.
struct PrefetchSchedulerRtl::Impl {
    sc_core::sc_signal<bool> clk{"clk"}, rst{"rst"}, cfg_enable{"cfg_enable"};
    sc_core::sc_signal<uint32_t> cfg_depth{"cfg_depth"};
    sc_core::sc_signal<uint64_t> cfg_chunk{"cfg_chunk"};
    sc_core::sc_signal<uint32_t> cfg_horizon{"cfg_horizon"}, cand_est{"cand_est"},
        op_start_est{"op_start_est"};
    sc_core::sc_signal<sc_dt::sc_bv<kLimitBits>> cfg_credit_limit{"cfg_credit_limit"};
    sc_core::sc_signal<bool> cand_valid{"cand_valid"}, cand_ready{"cand_ready"};
    sc_core::sc_signal<uint32_t> cand_op_seq{"cand_op_seq"}, cand_partition{"cand_partition"},
        cand_tier{"cand_tier"};
    sc_core::sc_signal<uint64_t> cand_addr{"cand_addr"}, cand_bytes{"cand_bytes"};
    sc_core::sc_signal<bool> op_start_valid{"op_start_valid"}, op_start_ready{"op_start_ready"};
    sc_core::sc_signal<uint32_t> op_start_seq{"op_start_seq"};
    sc_core::sc_signal<bool> credit_valid{"credit_valid"}, credit_ready{"credit_ready"};
    sc_core::sc_signal<uint32_t> credit_partition{"credit_partition"};
    sc_core::sc_signal<uint64_t> credit_bytes{"credit_bytes"};
    sc_core::sc_signal<bool> throttle{"throttle"};
    sc_core::sc_signal<bool> req_valid{"req_valid"}, req_ready{"req_ready"};
    sc_core::sc_signal<uint64_t> req_addr{"req_addr"}, req_bytes{"req_bytes"};
    sc_core::sc_signal<uint32_t> req_partition{"req_partition"}, req_op_seq{"req_op_seq"},
        req_tier{"req_tier"};
    sc_core::sc_signal<bool> late_drop{"late_drop"}, oversize_drop{"oversize_drop"};
    sc_core::sc_signal<uint32_t> queue_count{"queue_count"};
    sc_core::sc_signal<uint64_t> cnt_issued_chunks{"cnt_issued_chunks"},
        cnt_issued_bytes{"cnt_issued_bytes"}, cnt_late_drops{"cnt_late_drops"},
        cnt_credit_stalls{"cnt_credit_stalls"}, cnt_throttle_stalls{"cnt_throttle_stalls"},
        cnt_port_stalls{"cnt_port_stalls"}, cnt_window_waits{"cnt_window_waits"},
        cnt_candidates{"cnt_candidates"}, cnt_oversize_drops{"cnt_oversize_drops"};

    virtual ~Impl() = default;
    virtual void trace(VerilatedVcdC* tfp) = 0;
    virtual void final() = 0;
    std::unique_ptr<VerilatedVcdSc> waves;

    template <class Model>
    void bind(Model& m) {
        m.clk(clk);
        m.rst(rst);
        m.cfg_enable(cfg_enable);
        m.cfg_depth(cfg_depth);
        m.cfg_chunk(cfg_chunk);
        m.cfg_credit_limit(cfg_credit_limit);
        m.cfg_horizon(cfg_horizon);
        m.cand_est(cand_est);
        m.op_start_est(op_start_est);
        m.cand_valid(cand_valid);
        m.cand_ready(cand_ready);
        m.cand_op_seq(cand_op_seq);
        m.cand_addr(cand_addr);
        m.cand_bytes(cand_bytes);
        m.cand_partition(cand_partition);
        m.cand_tier(cand_tier);
        m.op_start_valid(op_start_valid);
        m.op_start_ready(op_start_ready);
        m.op_start_seq(op_start_seq);
        m.credit_valid(credit_valid);
        m.credit_ready(credit_ready);
        m.credit_partition(credit_partition);
        m.credit_bytes(credit_bytes);
        m.throttle(throttle);
        m.req_valid(req_valid);
        m.req_ready(req_ready);
        m.req_addr(req_addr);
        m.req_bytes(req_bytes);
        m.req_partition(req_partition);
        m.req_op_seq(req_op_seq);
        m.req_tier(req_tier);
        m.late_drop(late_drop);
        m.oversize_drop(oversize_drop);
        m.queue_count(queue_count);
        m.cnt_issued_chunks(cnt_issued_chunks);
        m.cnt_issued_bytes(cnt_issued_bytes);
        m.cnt_late_drops(cnt_late_drops);
        m.cnt_credit_stalls(cnt_credit_stalls);
        m.cnt_throttle_stalls(cnt_throttle_stalls);
        m.cnt_port_stalls(cnt_port_stalls);
        m.cnt_window_waits(cnt_window_waits);
        m.cnt_candidates(cnt_candidates);
        m.cnt_oversize_drops(cnt_oversize_drops);
    }
};

namespace {
template <class Model>
struct ModelImpl final : PrefetchSchedulerRtl::Impl {
    Model model{"rtl"};
    ModelImpl() { bind(model); }
    void trace(VerilatedVcdC* tfp) override { model.trace(tfp, 99); }
    void final() override { model.final(); }
};
}  // namespace

PrefetchSchedulerRtl::PrefetchSchedulerRtl(sc_core::sc_module_name name,
                                           const hjsd::Registers& registers, RtlVariant variant,
                                           const std::string& waves)
    : sc_module(name), m_regs(registers), m_waves(waves) {
    if (!m_waves.empty()) Verilated::traceEverOn(true);
    // A failed assertion stops nothing by itself (Verilator would abort the process): it sets the
    // context's error flag, which check_assertions() turns into a SimulationError.
    Verilated::threadContextp()->fatalOnError(false);
    if (variant == RtlVariant::kInjectedBug) {
#ifdef ASIM_RTL_HAS_BUG_VARIANT
        m_impl = std::make_unique<ModelImpl<Vprefetch_scheduler_bug>>();
#else
        throw std::invalid_argument(
            "this build has no bug-injected RTL variant (CMake ASIM_RTL_BUG_VARIANT=OFF)");
#endif
    } else {
        m_impl = std::make_unique<ModelImpl<Vprefetch_scheduler>>();
    }
    set_registers(registers);
}

PrefetchSchedulerRtl::~PrefetchSchedulerRtl() {
    m_impl->final();
    if (m_impl->waves) m_impl->waves->close();
}

void PrefetchSchedulerRtl::start_of_simulation() {
    if (m_waves.empty()) return;
    m_impl->waves = std::make_unique<VerilatedVcdSc>();
    m_impl->trace(m_impl->waves.get());
    m_impl->waves->open(m_waves.c_str());
    if (!m_impl->waves->isOpen()) throw std::runtime_error("cannot write waveforms to " + m_waves);
}

void PrefetchSchedulerRtl::set_registers(const hjsd::Registers& r) {
    m_regs = r;
    m_impl->cfg_enable.write(r.enable);
    m_impl->cfg_depth.write(r.prefetch_depth);
    m_impl->cfg_chunk.write(r.chunk_bytes);
    m_impl->cfg_horizon.write(static_cast<uint32_t>(r.horizon));
    sc_dt::sc_bv<kLimitBits> limits;
    for (uint32_t p = 0; p < RtlBuild::kPartitions; ++p) {
        limits.range((p + 1) * RtlBuild::kCreditBits - 1, p * RtlBuild::kCreditBits) =
            sc_dt::sc_bv<RtlBuild::kCreditBits>(r.credit_limit[p]);
    }
    m_impl->cfg_credit_limit.write(limits);
}

void PrefetchSchedulerRtl::reset() {
    if (m_reset_done) return;
    m_impl->rst.write(true);
    m_impl->clk.write(false);
    wait(sc_core::SC_ZERO_TIME);
    m_impl->clk.write(true);
    wait(sc_core::SC_ZERO_TIME);  // the model sees the edge
    wait(sc_core::SC_ZERO_TIME);  // and its outputs update
    m_impl->rst.write(false);
    m_reset_done = true;
}

hjsd::Outputs PrefetchSchedulerRtl::evaluate(const hjsd::Inputs& in) {
    if (!m_reset_done) reset();
    // clock() in this very delta: let the model take that edge before the clock falls again.
    if (m_edge_pending && sc_core::sc_delta_count() == m_edge_delta) wait(sc_core::SC_ZERO_TIME);
    m_edge_pending = false;
    check_assertions();
    Impl& s = *m_impl;
    s.clk.write(false);
    s.cand_valid.write(in.candidate.has_value());
    if (in.candidate) {
        s.cand_op_seq.write(static_cast<uint32_t>(in.candidate->op_seq));
        s.cand_addr.write(in.candidate->addr);
        s.cand_bytes.write(in.candidate->bytes);
        s.cand_partition.write(in.candidate->partition);
        s.cand_tier.write(in.candidate->tier);
        s.cand_est.write(static_cast<uint32_t>(in.candidate->est));
    }
    s.op_start_valid.write(in.op_start.has_value());
    if (in.op_start) {
        s.op_start_seq.write(static_cast<uint32_t>(*in.op_start));
        s.op_start_est.write(static_cast<uint32_t>(in.op_start_est));
    }
    s.credit_valid.write(in.credit_return.has_value());
    if (in.credit_return) {
        s.credit_partition.write(in.credit_return->first);
        s.credit_bytes.write(std::min(in.credit_return->second, mask(RtlBuild::kCreditBits)));
    }
    s.throttle.write(in.throttle);
    s.req_ready.write(in.req_ready);
    wait(sc_core::SC_ZERO_TIME);  // the model evaluates the new inputs
    wait(sc_core::SC_ZERO_TIME);  // its outputs update

    hjsd::Outputs out;
    out.cand_ready = s.cand_ready.read();
    if (s.req_valid.read()) {
        out.request = hjsd::Request{s.req_addr.read(), s.req_bytes.read(), s.req_partition.read(),
                                    s.req_op_seq.read(), s.req_tier.read()};
        out.issued = in.req_ready;
    }
    out.late_drop = s.late_drop.read();
    out.oversize_drop = s.oversize_drop.read();
    return out;
}

void PrefetchSchedulerRtl::check_assertions() const {
    if (!fatal_message().empty()) {
        throw SimulationError(
            "rtl: Verilator stopped: " + fatal_message() +
            (m_waves.empty() ? std::string() : " (writing the waveforms to " + m_waves + ")"));
    }
    if (Verilated::threadContextp()->gotError()) {
        throw SimulationError(
            "rtl: the prefetch scheduler's bound checker failed an assertion at clock edge " +
            std::to_string(m_edges) +
            " after reset (Verilator's \"Assertion failed in ...u_checker.<property>\" above)");
    }
}

void PrefetchSchedulerRtl::clock() {
    ++m_edges;
    m_impl->clk.write(true);
    m_edge_pending = true;
    m_edge_delta = sc_core::sc_delta_count();
}

hjsd::Counters PrefetchSchedulerRtl::counters() const {
    const Impl& s = *m_impl;
    hjsd::Counters c;
    c.issued_chunks = s.cnt_issued_chunks.read();
    c.issued_bytes = s.cnt_issued_bytes.read();
    c.late_drops = s.cnt_late_drops.read();
    c.credit_stalls = s.cnt_credit_stalls.read();
    c.throttle_stalls = s.cnt_throttle_stalls.read();
    c.port_stalls = s.cnt_port_stalls.read();
    c.window_waits = s.cnt_window_waits.read();
    c.candidates_accepted = s.cnt_candidates.read();
    c.oversize_drops = s.cnt_oversize_drops.read();
    return c;
}

uint32_t PrefetchSchedulerRtl::queued() const { return m_impl->queue_count.read(); }

}  // namespace asim::rtl
