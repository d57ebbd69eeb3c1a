// The H-JSD prefetch scheduler's decision core: the behaviour of DESIGN §5, cycle by cycle, with
// no SystemC and no TLM, so that both the chip model (hjsd.h) and the RTL co-simulation use this
// one class as the reference. One call of step() is one rising clock edge.
//
// Cycle semantics (the RTL in rtl/prefetch_scheduler follows the same; refinements of DESIGN §5
// are listed in README.md):
//  - Outputs are functions of the registered state and this cycle's inputs:
//      cand_ready    = the candidate queue is not full;
//      late_drop     = the head is late (op_seq <= current);
//      oversize_drop = the head is not late and its bytes exceed its partition's credit limit
//                      (the partition can never hold it);
//      req_valid     = enable, and the head candidate is eligible
//                      (current < op_seq <= current + depth; before the first op_start, current
//                      is "-1"; with a horizon, also est - current_est <= horizon, modulo
//                      2^kEstBits), and neither late nor oversize, and its partition's credit >=
//                      the head chunk's bytes, and the head is not throttled: throttle (local
//                      HBM load) holds back only heads whose source tier is local HBM (tier 0;
//                      rtl/README.md refinement 11).
//  - At the edge: a request is issued when req_valid and req_ready (credit taken, the head
//    advances by one chunk and is popped when done); else a late or oversize head is dropped and
//    counted (whatever enable and the window); a candidate is pushed when cand_valid and
//    cand_ready; op_start sets current; a credit return adds to its partition's credit
//    (saturating at the limit).
//  - Chunks: the head region is cut at multiples of chunk_bytes (addresses aligned), so the first
//    and last chunks may be shorter.
//  - A head that is eligible but not issued counts one stall, by priority: throttled, then
//    credit, then port (req_ready low). A head outside the window (ops or horizon) counts a
//    window wait.
//  - Time horizon (DESIGN §5, rtl/README.md refinement 8): each candidate carries `est`, the
//    estimated start of its op, and each op_start the estimated start of the op beginning, in
//    cycles of one running estimate (sums of the ops' estimated costs, kEstBits wide, wrapping).
//    With the `horizon` register non-zero, a head is in the window only if its op is estimated to
//    start at most `horizon` cycles after the current one (current_est is 0 before the first
//    op_start). horizon 0: lookahead bounded by ops and bytes only.
//  - A candidate's source tier is carried to its requests unchanged; it decides only whether
//    throttle applies.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace asim::hjsd {

// prefetch_depth register width: 6 bits (rtl/README.md, refinement 10).
constexpr uint32_t kMaxDepth = 63;
constexpr uint32_t kMaxPartitions = 4;
constexpr uint32_t kMaxTiers = 4;      // source tier: 2 bits
constexpr uint32_t kLocalHbmTier = 0;  // the only source tier the HBM throttle holds back
constexpr uint32_t kEstBits = 32;      // estimated start times and the horizon: cycles, wrapping
constexpr uint64_t kEstMask = (uint64_t{1} << kEstBits) - 1;

struct Candidate {
    uint64_t op_seq = 0;
    uint64_t addr = 0;
    uint64_t bytes = 0;
    uint32_t partition = 0;
    uint32_t tier = 0;  // source tier, 0..kMaxTiers-1 (0 = local HBM): the index the chip assigns
    uint64_t est = 0;   // estimated start of its op, cycles, below 2^kEstBits (the horizon's clock)
    bool operator==(const Candidate& o) const {
        return op_seq == o.op_seq && addr == o.addr && bytes == o.bytes &&
               partition == o.partition && tier == o.tier && est == o.est;
    }
};

struct Request {
    uint64_t addr = 0;
    uint64_t bytes = 0;
    uint32_t partition = 0;
    uint64_t op_seq = 0;
    uint32_t tier = 0;  // the candidate's source tier
    bool operator==(const Request& o) const {
        return addr == o.addr && bytes == o.bytes && partition == o.partition &&
               op_seq == o.op_seq && tier == o.tier;
    }
};

struct Registers {
    bool enable = true;
    uint32_t prefetch_depth = 5;                          // 0..kMaxDepth; 0 = off
    uint64_t chunk_bytes = 64 * 1024;                     // power of two
    std::array<uint64_t, kMaxPartitions> credit_limit{};  // bytes per partition
    uint64_t horizon = 0;  // cycles of estimated time ahead, below 2^kEstBits; 0 = no bound
};

// One cycle's inputs.
struct Inputs {
    std::optional<Candidate> candidate;  // cand_valid + payload
    std::optional<uint64_t> op_start;    // op_start_valid + op_seq
    uint64_t op_start_est = 0;  // with op_start: the op's estimated start (below 2^kEstBits)
    std::optional<std::pair<uint32_t, uint64_t>> credit_return;  // partition, bytes
    bool throttle = false;
    bool req_ready = true;
};

// What the block drove during the cycle (sampled before the edge).
struct Outputs {
    bool cand_ready = false;
    std::optional<Request> request;  // req_valid + payload (issued iff req_ready)
    bool issued = false;
    // The head is dropped at this edge: late (op_seq <= current), or else oversize (its bytes
    // exceed its partition's credit limit). At most one is set; drop() is either.
    bool late_drop = false;
    bool oversize_drop = false;
    bool drop() const { return late_drop || oversize_drop; }
};

struct Counters {
    uint64_t issued_chunks = 0, issued_bytes = 0, late_drops = 0;
    uint64_t credit_stalls = 0, throttle_stalls = 0, port_stalls = 0, window_waits = 0;
    uint64_t candidates_accepted = 0;
    uint64_t oversize_drops =
        0;  // heads dropped because their bytes exceed the partition's credit limit
};

class PrefetchSchedulerCore {
public:
    PrefetchSchedulerCore(uint32_t queue_depth, uint32_t partitions, const Registers& registers);

    // Register writes take effect from the next step(). Credits are re-clamped to new limits.
    void set_registers(const Registers& registers);
    const Registers& registers() const { return m_regs; }

    // Combinational view of the outputs for these inputs, without advancing state.
    Outputs peek(const Inputs& in) const;
    // One rising edge: returns what was driven during the cycle, then updates state.
    Outputs step(const Inputs& in);

    const Counters& counters() const { return m_counters; }
    uint64_t credit(uint32_t partition) const { return m_credit.at(partition); }
    std::size_t queued() const { return m_queue.size(); }
    // The head candidate, or null when the queue is empty.
    const Candidate* head() const { return m_queue.empty() ? nullptr : &m_queue.front(); }
    bool has_current() const { return m_has_current; }
    uint64_t current_op() const { return m_current; }
    uint64_t current_est() const { return m_current_est; }
    uint64_t cycle() const { return m_cycle; }
    // Nothing can change until an input does: the queue is empty, or the head waits for
    // op_start, a credit return, the port or throttle to drop (the TLM model sleeps then). A late
    // or oversize head is never idle: it is dropped at the next edge.
    bool idle_until_input(const Inputs& quiet) const;

    // Validates registers against the block's parameters; messages name the register.
    static std::vector<std::pair<std::string, std::string>> validate(const Registers& r,
                                                                     uint32_t partitions);

private:
    enum class HeadState { kNone, kLate, kOversize, kWaitWindow, kEligible };
    HeadState head_state() const;
    uint64_t head_chunk_bytes() const;
    bool throttled(const Inputs& in) const;  // the head is held by throttle (queue not empty)

    uint32_t m_queue_depth;
    uint32_t m_partitions;
    Registers m_regs;
    std::deque<Candidate> m_queue;
    uint64_t m_head_offset = 0;  // bytes of the head already issued
    bool m_has_current = false;
    uint64_t m_current = 0;
    uint64_t m_current_est = 0;  // the current op's estimated start (0 before the first)
    std::array<uint64_t, kMaxPartitions> m_credit{};
    Counters m_counters;
    uint64_t m_cycle = 0;
};

}  // namespace asim::hjsd
