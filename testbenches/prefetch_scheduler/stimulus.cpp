#include "testbenches/prefetch_scheduler/stimulus.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "models/common/errors.h"
#include "models/common/trace.h"
#include "testbenches/trace_replay/builtin_traces.h"

namespace asim::cosim {

namespace {

using hjsd::Candidate;
using hjsd::Inputs;
using hjsd::Outputs;
using hjsd::Registers;

// mt19937_64's sequence is fixed by the standard (the distributions are not), so draws are
// reproducible on every platform.
class Rng {
public:
    explicit Rng(uint64_t seed) : m_gen(seed) {}
    uint64_t below(uint64_t n) { return n ? m_gen() % n : 0; }
    uint64_t range(uint64_t lo, uint64_t hi) { return lo + below(hi - lo + 1); }
    bool chance(double p) { return static_cast<double>(m_gen() >> 11) * 0x1.0p-53 < p; }
    template <class T, std::size_t N>
    T pick(const T (&options)[N]) {
        return options[below(N)];
    }

private:
    std::mt19937_64 m_gen;
};

constexpr uint64_t kKiB = 1024;

class RandomStimulus final : public Stimulus {
public:
    // The time horizon's draws come from a generator of their own, so that the rest of the
    // stimulus of a seed is what it was before the horizon existed.
    explicit RandomStimulus(uint64_t seed)
        : m_rng(seed), m_horizon_rng(seed * 0x9E3779B97F4A7C15ULL + 1), m_seed(seed) {
        // The estimated times start below the wrap at 2^kEstBits, which they cross after a few
        // hundred ops (and again after an op new_phase makes end just before it).
        m_est.push_back(hjsd::kEstMask - m_horizon_rng.below(400'000));
        m_regs.enable = true;
        m_regs.prefetch_depth = 5;
        m_regs.chunk_bytes = 4 * kKiB;
        for (auto& limit : m_regs.credit_limit) limit = m_rng.range(4 * kKiB, 512 * kKiB);
    }

    Registers initial_registers() const override { return m_regs; }

    void drive(uint64_t cycle, Inputs& in, std::optional<Registers>& regs) override {
        if (cycle >= m_phase_end) new_phase(cycle, regs);

        if (!m_pending && m_rng.chance(m_cand_rate)) m_pending = make_candidate();
        in.candidate = m_pending;

        // Ops start faster while the candidates run far ahead of the window, so that the queue
        // does not sit full for whole phases.
        const bool far_ahead = m_has_current && m_gen_seq > m_current + m_regs.prefetch_depth + 2;
        if (m_rng.chance(far_ahead ? std::max(m_op_rate, 0.05) : m_op_rate)) {
            uint64_t next = m_has_current ? m_current + 1 : 0;
            if (m_rng.chance(m_jump_p)) next += m_rng.range(1, 8);
            if (next <= m_gen_seq + 1) {
                in.op_start = next;
                in.op_start_est = est_of(next);
                m_has_current = true;
                m_current = next;
            }
        }

        if (m_credit_mode != CreditMode::kStarved && !m_returns.empty() &&
            m_returns.begin()->first <= cycle) {
            in.credit_return = m_returns.begin()->second;
            m_returns.erase(m_returns.begin());
        } else if (m_credit_mode == CreditMode::kFlood && m_rng.chance(0.02)) {
            const uint32_t p = static_cast<uint32_t>(m_rng.below(hjsd::kMaxPartitions));
            in.credit_return = std::make_pair(p, m_rng.range(1, 2 * m_regs.credit_limit[p] + 1));
        }

        if (m_rng.chance(m_throttle_flip)) m_throttle = !m_throttle;
        in.throttle = m_throttle;
        in.req_ready = m_rng.chance(m_ready_p);
    }

    void observe(uint64_t cycle, const Inputs& in, const Outputs& out) override {
        if (in.candidate && out.cand_ready) m_pending.reset();
        if (out.issued) {
            const uint64_t due = cycle + m_rng.range(m_return_delay_lo, m_return_delay_hi);
            m_returns.emplace(due, std::make_pair(out.request->partition, out.request->bytes));
        }
    }

    bool done(std::size_t) const override { return false; }
    std::string describe() const override {
        return "constrained random, seed " + std::to_string(m_seed);
    }

private:
    enum class CreditMode { kNormal, kStarved, kFlood };

    // Op seq's estimated start: the estimates of the ops before it summed (1..3000 cycles each),
    // wrapping at 2^kEstBits.
    uint64_t est_of(uint64_t seq) {
        while (m_est.size() <= seq)
            m_est.push_back((m_est.back() + m_horizon_rng.range(1, 3000)) & hjsd::kEstMask);
        return m_est[seq];
    }

    void new_phase(uint64_t cycle, std::optional<Registers>& regs) {
        m_phase_end = cycle + m_rng.range(200, 3000);
        const double cand_rates[] = {0.02, 0.2, 0.6, 1.0};
        const double op_rates[] = {0.001, 0.005, 0.02, 0.1};
        const double jumps[] = {0.0, 0.05, 0.3};
        const double flips[] = {0.0, 0.0, 0.01, 0.2};
        const double ready[] = {1.0, 1.0, 0.8, 0.3, 0.05};
        m_cand_rate = m_rng.pick(cand_rates);
        m_op_rate = m_rng.pick(op_rates);
        m_jump_p = m_rng.pick(jumps);
        m_throttle_flip = m_rng.pick(flips);
        m_throttle = m_rng.chance(0.15);
        m_ready_p = m_rng.pick(ready);
        const uint64_t mode = m_rng.below(20);
        m_credit_mode = mode < 12   ? CreditMode::kNormal
                        : mode < 17 ? CreditMode::kStarved
                                    : CreditMode::kFlood;
        const bool short_delay = m_rng.chance(0.5);
        m_return_delay_lo = short_delay ? 1 : 20;
        m_return_delay_hi = short_delay ? 20 : 400;

        Registers r = m_regs;
        if (m_rng.chance(0.4)) {
            const uint64_t d = m_rng.below(8);
            r.prefetch_depth = d == 0   ? 0
                               : d == 1 ? hjsd::kMaxDepth
                                        : static_cast<uint32_t>(m_rng.range(1, 14));
        }
        r.enable = !m_rng.chance(0.1);
        if (m_rng.chance(0.1)) r.chunk_bytes = uint64_t{1} << m_rng.range(6, 16);
        if (m_rng.chance(0.1)) {
            for (auto& limit : r.credit_limit) limit = m_rng.range(4 * kKiB, 512 * kKiB);
        }
        // A time horizon in most phases after the first: a few ops' estimates (tight) to many
        // (loose), or exactly the estimated distance to one of the next ops (its edge).
        if (cycle > 0) {
            constexpr uint64_t kExact = ~uint64_t{0};
            const uint64_t horizons[] = {0, 0, 1, 2000, 6000, 20000, kExact, kExact};
            const uint64_t h = m_horizon_rng.pick(horizons);
            if (h == kExact) {
                const uint64_t from = m_has_current ? m_current : 0;
                r.horizon =
                    (est_of(from + m_horizon_rng.range(1, 3)) - est_of(from)) & hjsd::kEstMask;
            } else {
                r.horizon = h <= 1 ? h : m_horizon_rng.range(1, h);
            }
            // Now and then an op estimated to run until just before the wrap, so that the ops
            // after it straddle it while a horizon is set.
            if (m_horizon_rng.chance(0.25))
                m_est.push_back(hjsd::kEstMask - m_horizon_rng.below(6000));
        }
        if (!(r.enable == m_regs.enable && r.prefetch_depth == m_regs.prefetch_depth &&
              r.chunk_bytes == m_regs.chunk_bytes && r.credit_limit == m_regs.credit_limit &&
              r.horizon == m_regs.horizon)) {
            m_regs = r;
            regs = r;
        }
    }

    Candidate make_candidate() {
        // Keep the candidates near the running op (most of the time): far behind they are all
        // late, far ahead the queue only waits for the window.
        if (m_has_current && m_gen_seq < m_current && m_rng.chance(0.8)) {
            m_gen_seq = m_current + m_rng.range(0, 3);
            m_left_in_op = 0;
        }
        if (m_left_in_op == 0) {
            if (m_started) m_gen_seq += m_rng.chance(0.1) ? 2 : 1;
            m_started = true;
            m_left_in_op = static_cast<uint32_t>(m_rng.range(1, 4));
        }
        --m_left_in_op;
        Candidate c;
        c.op_seq = m_gen_seq;
        c.addr = m_rng.below(uint64_t{1} << 40);
        if (m_rng.chance(0.5)) c.addr &= ~uint64_t{63};
        const uint64_t chunk = m_regs.chunk_bytes;
        c.bytes = m_rng.chance(0.01)  ? 0
                  : m_rng.chance(0.3) ? m_rng.range(1, chunk)
                                      : m_rng.range(1, 6 * chunk);
        c.partition = static_cast<uint32_t>(m_rng.below(hjsd::kMaxPartitions));
        // Now and then exactly the partition's credit limit (it fits: issued), or just above it
        // (it can never be held: dropped as oversize), as the limit stands now.
        const uint64_t limit = m_regs.credit_limit[c.partition];
        const uint64_t size_draw = m_rng.below(100);
        if (size_draw < 1) {
            c.bytes = limit;
        } else if (size_draw < 3) {
            c.bytes = limit + m_rng.range(1, chunk);
        }
        c.tier = static_cast<uint32_t>(m_rng.below(hjsd::kMaxTiers));
        c.est = est_of(c.op_seq);
        return c;
    }

    Rng m_rng;
    Rng m_horizon_rng;
    uint64_t m_seed;
    Registers m_regs;
    std::vector<uint64_t> m_est;  // estimated start per op seq (est_of)
    uint64_t m_phase_end = 0;
    double m_cand_rate = 0, m_op_rate = 0, m_jump_p = 0, m_throttle_flip = 0, m_ready_p = 1;
    bool m_throttle = false;
    CreditMode m_credit_mode = CreditMode::kNormal;
    uint64_t m_return_delay_lo = 1, m_return_delay_hi = 20;
    std::optional<Candidate> m_pending;
    bool m_started = false;
    uint64_t m_gen_seq = 0;
    uint32_t m_left_in_op = 0;
    bool m_has_current = false;
    uint64_t m_current = 0;
    std::multimap<uint64_t, std::pair<uint32_t, uint64_t>> m_returns;  // due cycle -> return
};

std::unique_ptr<trace::TraceReader> open_trace(const std::string& name) {
    if (name.rfind("builtin:", 0) == 0) {
        BuiltinTrace t = builtin_trace(name);
        return std::make_unique<trace::TraceReader>(std::make_unique<std::istringstream>(t.text),
                                                    t.name);
    }
    return std::make_unique<trace::TraceReader>(name);
}

class TraceStimulus final : public Stimulus {
public:
    // Bytes an op moves per cycle while it runs (an HBM-bound approximation: only the order and
    // overlap of op_start, candidates and credit matter to the block).
    static constexpr uint64_t kBytesPerCycle = 4096;
    static constexpr uint64_t kFirstStart = 16;
    static constexpr std::size_t kPortSlots = 8;

    TraceStimulus(const std::string& trace, uint64_t seed) : m_rng(seed), m_name(trace) {
        auto reader = open_trace(trace);
        trace::Op op;
        uint64_t start = kFirstStart;
        while (reader->next(op)) {
            const uint64_t seq = m_ops.size();
            uint64_t bytes = 0;
            for (const auto& t : op.inputs) {
                bytes += t.bytes;
                if (t.stream == StreamClass::kWeight) {
                    Candidate c{seq, t.addr, t.bytes, 0};
                    c.est = start & hjsd::kEstMask;  // exact: the op's start in this stimulus
                    m_candidates.push_back(c);
                }
            }
            for (const auto& t : op.outputs) bytes += t.bytes;
            const uint64_t duration = std::max<uint64_t>(32, bytes / kBytesPerCycle);
            m_ops.push_back(OpTiming{start, duration, 0, 0});
            start += duration;
        }
        if (m_ops.empty()) throw InputError(trace + ": the trace has no ops");
        if (m_candidates.empty())
            throw InputError(trace + ": the trace has no weight tensors to prefetch");
        m_end = start;
        m_regs.enable = true;
        m_regs.prefetch_depth = 5;
        m_regs.chunk_bytes = 64 * kKiB;
        m_regs.credit_limit = {20 * 1024 * kKiB, 0, 0, 0};
    }

    Registers initial_registers() const override { return m_regs; }

    void drive(uint64_t cycle, Inputs& in, std::optional<Registers>&) override {
        if (m_next_candidate < m_candidates.size()) in.candidate = m_candidates[m_next_candidate];
        if (m_next_op < m_ops.size() && m_ops[m_next_op].start == cycle) {
            in.op_start = m_next_op;
            in.op_start_est = cycle & hjsd::kEstMask;
            ++m_next_op;
        }
        // Prefetched bytes of a running op come back as credit as the op consumes them.
        if (m_next_op > 0) {
            OpTiming& op = m_ops[m_next_op - 1];
            const uint64_t elapsed = std::min(cycle + 1 - op.start, op.duration);
            const uint64_t due = op.prefetched * elapsed / op.duration;
            if (due > op.returned) {
                in.credit_return = std::make_pair(0u, due - op.returned);
                op.returned = due;
            }
        }
        while (!m_in_flight.empty() && m_in_flight.front() <= cycle) m_in_flight.pop_front();
        in.req_ready = m_in_flight.size() < kPortSlots;
        if (m_rng.chance(m_throttle ? 0.05 : 0.002)) m_throttle = !m_throttle;
        in.throttle = m_throttle;
    }

    void observe(uint64_t cycle, const Inputs& in, const Outputs& out) override {
        if (in.candidate && out.cand_ready) ++m_next_candidate;
        if (out.issued) {
            m_in_flight.push_back(cycle + 100 + out.request->bytes / 512);
            std::sort(m_in_flight.begin(), m_in_flight.end());
            OpTiming& op = m_ops[out.request->op_seq];
            // Bytes for an op already running are returned from then on; an op not yet started
            // returns them when it runs.
            op.prefetched += out.request->bytes;
        }
        m_cycle = cycle + 1;
    }

    bool done(std::size_t queued) const override {
        return m_next_candidate == m_candidates.size() && m_next_op == m_ops.size() &&
               m_cycle >= m_end && queued == 0;
    }

    std::string describe() const override {
        return "trace " + m_name + ": " + std::to_string(m_ops.size()) + " ops, " +
               std::to_string(m_candidates.size()) + " weight candidates, " +
               std::to_string(m_end) + " cycles of ops";
    }

private:
    struct OpTiming {
        uint64_t start, duration, prefetched, returned;
    };
    Rng m_rng;
    std::string m_name;
    Registers m_regs;
    std::vector<OpTiming> m_ops;
    std::vector<Candidate> m_candidates;
    std::size_t m_next_candidate = 0, m_next_op = 0;
    uint64_t m_end = 0, m_cycle = 0;
    std::deque<uint64_t> m_in_flight;
    bool m_throttle = false;
};

}  // namespace

std::unique_ptr<Stimulus> make_random_stimulus(uint64_t seed) {
    return std::make_unique<RandomStimulus>(seed);
}

std::unique_ptr<Stimulus> make_trace_stimulus(const std::string& trace, uint64_t seed) {
    return std::make_unique<TraceStimulus>(trace, seed);
}

}  // namespace asim::cosim
