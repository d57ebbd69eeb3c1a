#include "models/chip/hjsd/prefetch_scheduler_core.h"

#include <algorithm>
#include <stdexcept>

namespace asim::hjsd {

std::vector<std::pair<std::string, std::string>> PrefetchSchedulerCore::validate(
    const Registers& r, uint32_t partitions) {
    std::vector<std::pair<std::string, std::string>> problems;
    if (r.prefetch_depth > kMaxDepth) {
        problems.emplace_back("prefetch_depth", "must be at most " + std::to_string(kMaxDepth) +
                                                    " (the hardware maximum), got " +
                                                    std::to_string(r.prefetch_depth));
    }
    if (r.chunk_bytes == 0 || (r.chunk_bytes & (r.chunk_bytes - 1)) != 0) {
        problems.emplace_back("chunk", "must be a power of two");
    }
    if (r.horizon > kEstMask) {
        problems.emplace_back("horizon", "must be below 2^" + std::to_string(kEstBits) +
                                             " cycles (the register's width), got " +
                                             std::to_string(r.horizon));
    }
    if (partitions == 0 || partitions > kMaxPartitions) {
        problems.emplace_back("partitions", "must be 1.." + std::to_string(kMaxPartitions));
    }
    return problems;
}

PrefetchSchedulerCore::PrefetchSchedulerCore(uint32_t queue_depth, uint32_t partitions,
                                             const Registers& registers)
    : m_queue_depth(queue_depth), m_partitions(partitions), m_regs(registers) {
    const auto problems = validate(registers, partitions);
    if (!problems.empty())
        throw std::invalid_argument("hjsd: " + problems[0].first + ": " + problems[0].second);
    if (queue_depth == 0) throw std::invalid_argument("hjsd: queue depth must be at least 1");
    for (uint32_t p = 0; p < m_partitions; ++p) m_credit[p] = m_regs.credit_limit[p];
}

void PrefetchSchedulerCore::set_registers(const Registers& registers) {
    const auto problems = validate(registers, m_partitions);
    if (!problems.empty())
        throw std::invalid_argument("hjsd: " + problems[0].first + ": " + problems[0].second);
    m_regs = registers;
    for (uint32_t p = 0; p < m_partitions; ++p)
        m_credit[p] = std::min(m_credit[p], m_regs.credit_limit[p]);
}

PrefetchSchedulerCore::HeadState PrefetchSchedulerCore::head_state() const {
    if (m_queue.empty()) return HeadState::kNone;
    const uint64_t seq = m_queue.front().op_seq;
    if (m_has_current && seq <= m_current) return HeadState::kLate;
    // The partition can never hold it (the current limit; a lowered limit can drop a head that
    // was partly issued): bytes-bounded lookahead, DESIGN §5.
    if (m_queue.front().bytes > m_regs.credit_limit[m_queue.front().partition])
        return HeadState::kOversize;
    // current < seq <= current + depth, with current = -1 before the first op_start.
    const uint64_t limit =
        m_has_current ? m_current + m_regs.prefetch_depth : m_regs.prefetch_depth;
    const bool in_window = m_has_current ? seq <= limit : seq < limit;
    // Within the time horizon: its op estimated to start at most `horizon` cycles after the
    // current op's estimated start (modulo 2^kEstBits, as the register arithmetic wraps).
    const bool in_horizon =
        m_regs.horizon == 0 || ((m_queue.front().est - m_current_est) & kEstMask) <= m_regs.horizon;
    return in_window && in_horizon ? HeadState::kEligible : HeadState::kWaitWindow;
}

bool PrefetchSchedulerCore::throttled(const Inputs& in) const {
    // The throttle reports local HBM load: it holds back only prefetches that read local HBM. A
    // head from a pool tier reads the remote port, whose arbiters serve demand first on their own.
    return in.throttle && m_queue.front().tier == kLocalHbmTier;
}

uint64_t PrefetchSchedulerCore::head_chunk_bytes() const {
    const Candidate& h = m_queue.front();
    const uint64_t at = h.addr + m_head_offset;
    const uint64_t boundary = (at / m_regs.chunk_bytes + 1) * m_regs.chunk_bytes;
    return std::min(boundary, h.addr + h.bytes) - at;
}

Outputs PrefetchSchedulerCore::peek(const Inputs& in) const {
    Outputs out;
    out.cand_ready = m_queue.size() < m_queue_depth;
    const HeadState hs = head_state();
    if (hs == HeadState::kLate) {
        out.late_drop = true;
    } else if (hs == HeadState::kOversize) {
        out.oversize_drop = true;
    } else if (hs == HeadState::kEligible && m_regs.enable) {
        const Candidate& h = m_queue.front();
        const uint64_t bytes = head_chunk_bytes();
        const uint32_t p = h.partition;
        if (!throttled(in) && m_credit[p] >= bytes) {
            out.request = Request{h.addr + m_head_offset, bytes, p, h.op_seq, h.tier};
            out.issued = in.req_ready;
        }
    }
    return out;
}

Outputs PrefetchSchedulerCore::step(const Inputs& in) {
    const Outputs out = peek(in);
    const HeadState hs = head_state();

    // Issue, drop, or count why not.
    if (out.issued) {
        const Request& r = *out.request;
        m_credit[r.partition] -= r.bytes;
        ++m_counters.issued_chunks;
        m_counters.issued_bytes += r.bytes;
        m_head_offset += r.bytes;
        if (m_head_offset >= m_queue.front().bytes) {
            m_queue.pop_front();
            m_head_offset = 0;
        }
    } else if (out.drop()) {
        ++(out.late_drop ? m_counters.late_drops : m_counters.oversize_drops);
        m_queue.pop_front();
        m_head_offset = 0;
    } else if (hs == HeadState::kEligible && m_regs.enable) {
        if (throttled(in)) {
            ++m_counters.throttle_stalls;
        } else if (!out.request) {
            ++m_counters.credit_stalls;
        } else {
            ++m_counters.port_stalls;
        }
    } else if (hs == HeadState::kWaitWindow) {
        ++m_counters.window_waits;
    }

    // Candidate push (a zero-byte candidate carries nothing to prefetch and is not queued).
    if (in.candidate && out.cand_ready) {
        if (in.candidate->partition >= m_partitions) {
            throw std::invalid_argument("hjsd: candidate for partition " +
                                        std::to_string(in.candidate->partition) + " of " +
                                        std::to_string(m_partitions));
        }
        if (in.candidate->est > kEstMask) {
            throw std::invalid_argument("hjsd: candidate of op " +
                                        std::to_string(in.candidate->op_seq) +
                                        ": estimated start " + std::to_string(in.candidate->est) +
                                        " is wider than " + std::to_string(kEstBits) + " bits");
        }
        if (in.candidate->tier >= kMaxTiers) {
            throw std::invalid_argument("hjsd: candidate of op " +
                                        std::to_string(in.candidate->op_seq) + " from tier " +
                                        std::to_string(in.candidate->tier) + " (tiers 0.." +
                                        std::to_string(kMaxTiers - 1) + ")");
        }
        ++m_counters.candidates_accepted;
        if (in.candidate->bytes > 0) m_queue.push_back(*in.candidate);
    }
    if (in.op_start) {
        if (in.op_start_est > kEstMask)
            throw std::invalid_argument("hjsd: op_start of op " + std::to_string(*in.op_start) +
                                        ": estimated start wider than " + std::to_string(kEstBits) +
                                        " bits");
        m_has_current = true;
        m_current = *in.op_start;
        m_current_est = in.op_start_est;
    }
    if (in.credit_return) {
        const uint32_t p = in.credit_return->first;
        if (p >= m_partitions)
            throw std::invalid_argument("hjsd: credit return for partition " + std::to_string(p));
        m_credit[p] = std::min(m_regs.credit_limit[p], m_credit[p] + in.credit_return->second);
    }
    ++m_cycle;
    return out;
}

bool PrefetchSchedulerCore::idle_until_input(const Inputs& quiet) const {
    const HeadState hs = head_state();
    if (hs == HeadState::kNone || hs == HeadState::kWaitWindow) return true;
    if (hs == HeadState::kLate || hs == HeadState::kOversize)
        return false;  // dropped at the next edge
    if (!m_regs.enable) return true;
    const Outputs out = peek(quiet);
    return !out.issued;  // blocked on throttle, credit or the port: only an input can unblock it
}

}  // namespace asim::hjsd
