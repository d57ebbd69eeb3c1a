#include "testbenches/prefetch_scheduler/coverage.h"

#include <cstdio>
#include <stdexcept>

namespace asim::cosim {

namespace {

// The bins in the order the constructor lists them: sample() counts by index, not by name.
enum BinIndex : std::size_t {
    kStallThrottle,
    kStallCredit,
    kStallPort,
    kStallWindow,
    kQueueFull,
    kQueueEmpty,
    kQueuePushWhileFull,
    kDepthZero,
    kDepthMax,
    kDepthChange,
    kEnableOff,
    kLateDrop,
    kOversizeDrop,
    kOversizeLateFirst,
    kOversizeExactFit,
    kCreditExhausted,
    kCreditReturnUnblocks,
    kCreditSaturate,
    kIssueBackToBack,
    kIssueSplit,
    kCandidateZeroBytes,
    kOpStartJump,
    kOpStartWithIssue,
    kTierNonzero,
    kTierUnthrottled,
    kHorizonWait,
    kHorizonEdge,
    kHorizonWrap,
    kBinCount
};

}  // namespace

Coverage::Coverage() {
    m_bins = {
        {"stall.throttle", "an eligible head held by throttle", 1, 0},
        {"stall.credit", "an eligible head held for partition credit", 1, 0},
        {"stall.port", "a valid request held by req_ready low", 1, 0},
        {"stall.window", "a head waiting for its op to enter the window", 1, 0},
        {"queue.full", "cand_ready low: the candidate queue full", 1, 0},
        {"queue.empty", "the queue drained to empty after holding candidates", 1, 0},
        {"queue.push_while_full", "a candidate offered while the queue is full", 1, 0},
        {"depth.zero", "depth 0 with candidates queued", 1, 0},
        {"depth.max", "a request issued at the maximum depth", 1, 0},
        {"depth.change", "a register write changed the depth", 1, 0},
        {"enable.off", "an eligible head while enable is low", 1, 0},
        {"late.drop", "a late head dropped", 1, 0},
        {"oversize.drop", "a head larger than its partition's credit limit dropped", 1, 0},
        {"oversize.late_first", "a late head that is also oversize dropped as late", 1, 0},
        {"oversize.exact_fit", "a candidate exactly its partition's credit limit issued", 1, 0},
        {"credit.exhausted", "an issue left its partition less credit than a chunk", 1, 0},
        {"credit.return_unblocks", "a credit return let a credit-stalled partition issue", 1, 0},
        {"credit.saturate", "a credit return clipped at the limit", 1, 0},
        {"issue.back_to_back", "requests issued in consecutive cycles", 1, 0},
        {"issue.split", "a region cut into several chunks (a short first or last chunk)", 1, 0},
        {"candidate.zero_bytes", "a zero-byte candidate accepted and discarded", 1, 0},
        {"op_start.jump", "op_start skipping ahead by more than one op", 1, 0},
        {"op_start.with_issue", "op_start and an issue in the same cycle", 1, 0},
        {"tier.nonzero", "a request issued from a non-zero source tier", 1, 0},
        {"tier.unthrottled", "a request from a pool tier issued while throttle is high", 1, 0},
        {"horizon.wait", "a head inside the op window held back by the time horizon", 1, 0},
        {"horizon.edge", "a request issued exactly at the horizon (est - current est = horizon)", 1,
         0},
        {"horizon.wrap", "a request issued under a horizon across the estimates' wrap", 1, 0},
    };
    if (m_bins.size() != kBinCount)
        throw std::logic_error("coverage: the bin list and its index disagree");
}

uint64_t& Coverage::bin(std::size_t index) { return m_bins[index].hits; }

void Coverage::sample(const hjsd::Inputs& in, const hjsd::Outputs& out, const hjsd::Registers& regs,
                      const hjsd::Counters& before, const hjsd::Counters& after,
                      const hjsd::Candidate* head_before, std::size_t queued_before,
                      std::size_t queued_after, const std::vector<uint64_t>& credit_before) {
    if (after.throttle_stalls > before.throttle_stalls) ++bin(kStallThrottle);
    if (after.credit_stalls > before.credit_stalls) ++bin(kStallCredit);
    if (after.port_stalls > before.port_stalls) ++bin(kStallPort);
    if (after.window_waits > before.window_waits) {
        ++bin(kStallWindow);
        // In the op window (current < op_seq <= current + depth): the horizon held it.
        const uint64_t depth = regs.prefetch_depth;
        if (head_before && regs.horizon != 0 &&
            (m_had_current ? head_before->op_seq > m_last_op_start &&
                                 head_before->op_seq <= m_last_op_start + depth
                           : head_before->op_seq < depth)) {
            ++bin(kHorizonWait);
        }
    }
    if (!out.cand_ready) {
        ++bin(kQueueFull);
        if (in.candidate) ++bin(kQueuePushWhileFull);
    }
    if (queued_before > 0 && queued_after == 0) ++bin(kQueueEmpty);
    if (regs.prefetch_depth == 0 && queued_before > 0) ++bin(kDepthZero);
    if (out.issued && regs.prefetch_depth == hjsd::kMaxDepth) ++bin(kDepthMax);
    if (!regs.enable && queued_before > 0 && !out.drop() &&
        after.window_waits == before.window_waits) {
        ++bin(kEnableOff);
    }
    if (out.late_drop) ++bin(kLateDrop);
    if (out.oversize_drop) ++bin(kOversizeDrop);
    const bool head_oversize =
        head_before && head_before->bytes > regs.credit_limit[head_before->partition];
    if (out.late_drop && head_oversize) ++bin(kOversizeLateFirst);
    if (in.candidate && out.cand_ready && in.candidate->bytes == 0) ++bin(kCandidateZeroBytes);

    const std::size_t parts = credit_before.size();
    if (out.issued) {
        const uint32_t p = out.request->partition;
        if (credit_before[p] - out.request->bytes < regs.chunk_bytes) ++bin(kCreditExhausted);
        if (m_was_credit_stalled[p]) ++bin(kCreditReturnUnblocks);
        m_was_credit_stalled[p] = false;
        if (m_issued_last) ++bin(kIssueBackToBack);
        if (out.request->bytes < regs.chunk_bytes) ++bin(kIssueSplit);
        if (head_before && head_before->bytes == regs.credit_limit[p]) ++bin(kOversizeExactFit);
        if (out.request->tier != 0) ++bin(kTierNonzero);
        if (out.request->tier != hjsd::kLocalHbmTier && in.throttle) ++bin(kTierUnthrottled);
        if (head_before && regs.horizon != 0) {
            if (((head_before->est - m_last_op_start_est) & hjsd::kEstMask) == regs.horizon)
                ++bin(kHorizonEdge);
            if (head_before->est < m_last_op_start_est) ++bin(kHorizonWrap);
        }
    }
    // Only a credit return can raise a partition's credit, so a stalled partition that issues
    // later was unblocked by one.
    if (after.credit_stalls > before.credit_stalls && head_before)
        m_was_credit_stalled[head_before->partition] = true;
    if (in.credit_return) {
        const uint32_t p = in.credit_return->first;
        if (p < parts && credit_before[p] + in.credit_return->second > regs.credit_limit[p])
            ++bin(kCreditSaturate);
    }
    if (in.op_start) {
        if (m_had_current && *in.op_start > m_last_op_start + 1) ++bin(kOpStartJump);
        if (out.issued) ++bin(kOpStartWithIssue);
        m_had_current = true;
        m_last_op_start = *in.op_start;
        m_last_op_start_est = in.op_start_est;
    }
    m_issued_last = out.issued;
}

void Coverage::register_write(const hjsd::Registers& before, const hjsd::Registers& after) {
    if (before.prefetch_depth != after.prefetch_depth) ++bin(kDepthChange);
}

std::size_t Coverage::bins_hit() const {
    std::size_t n = 0;
    for (const Bin& b : m_bins) n += b.hits >= b.goal;
    return n;
}

std::string Coverage::report() const {
    std::string s = "coverage: " + std::to_string(bins_hit()) + " of " +
                    std::to_string(m_bins.size()) + " bins hit\n";
    char line[200];
    for (const Bin& b : m_bins) {
        std::snprintf(line, sizeof line, "  %-4s %-24s %10llu  %s\n",
                      b.hits >= b.goal ? "ok" : "MISS", b.name.c_str(),
                      static_cast<unsigned long long>(b.hits), b.what.c_str());
        s += line;
    }
    return s;
}

}  // namespace asim::cosim
