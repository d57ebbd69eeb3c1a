#include "models/memory/hbm/hbm_policies.h"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

namespace asim {

namespace {

// FR-FCFS over the command queues, round-robin between queues. Within a queue, the first ready
// command in age order wins, so a column command to an open row (a row hit) overtakes an older
// request that would need PRE + ACT. A precharge is allowed only for the oldest request of its
// bank and only when no queued request still hits the open row, or when `row_hit_cap` hits
// have been served since the ACT: that cap bounds how long a row conflict can be bypassed.
//
// Between queues, `Order::kRoundRobin` takes the first queue after the last one served that has a
// ready command (DRAMSim3's order); `Order::kOldest` takes, of every queue's first ready command,
// the one of the oldest request (Rixner et al., "Memory Access Scheduling", ISCA 2000: ready
// commands first, then age), so the bursts of one line finish together instead of interleaving
// with every other queue's. The order applies to a queue per bank; one shared queue is in age
// order already.
class FrFcfs final : public HbmScheduler {
public:
    enum class Order { kRoundRobin, kOldest };
    FrFcfs(uint32_t cap, bool in_order, Order order = Order::kRoundRobin)
        : m_cap(cap), m_in_order(in_order), m_order(order) {}

    HbmPick pick(const HbmChannel& ch, HbmCmdClass want, uint64_t now, uint32_t& rr,
                 uint64_t& next_ready) const override {
        // With a queue per bank, only the oldest request can need a row command, and column
        // commands exist only while the bank is open: both checks skip most of the scan.
        const bool per_bank = ch.params().ctrl.queue_structure == QueueStructure::kPerBank;
        if (per_bank && want == HbmCmdClass::kColumn)
            return pick_column_per_bank(ch, now, rr, next_ready);
        if (per_bank && want == HbmCmdClass::kRow)
            return pick_row_per_bank(ch, now, rr, next_ready);
        // Round-robin over the non-empty queues, starting after `rr`.
        const std::vector<uint32_t>& active = ch.active_queues();
        const std::size_t first = static_cast<std::size_t>(
            std::upper_bound(active.begin(), active.end(), rr) - active.begin());
        return round_robin(
            ch, first, [&](uint32_t q) __attribute__((always_inline))->HbmPick {
                const auto& queue = ch.queue(q);
                const auto limit = static_cast<uint32_t>(queue.size());
                for (uint32_t i = 0; i < limit; ++i) {
                    if (m_in_order && !oldest_of_bank(queue, i)) continue;
                    uint64_t ready = 0;
                    const HbmCmd cmd = ch.next_command(q, i, ready);
                    if (!hbm_cmd_in_class(cmd, want) || ready == kHbmNever) continue;
                    if ((cmd == HbmCmd::kPre || cmd == HbmCmd::kAct) && !oldest_of_bank(queue, i))
                        continue;
                    if (cmd == HbmCmd::kPre && !precharge_allowed(ch.bank(queue[i].bank))) continue;
                    if ((cmd == HbmCmd::kRead || cmd == HbmCmd::kWrite) &&
                        !hit_allowed(ch, queue, i))
                        continue;
                    if (ready > now) {
                        next_ready = std::min(next_ready, ready);
                        continue;
                    }
                    rr = q;
                    return {cmd, q, i};
                }
                return {};
            });
    }

private:
    // Calls `try_queue(q)` on the non-empty queues round-robin, from entry `first` of the active
    // list and wrapping; returns the first command it picks. The scans pass it always_inline
    // lambdas: without, GCC left them out of line and mem-replay ran 2.3 % slower.
    template <typename TryQueue>
    static HbmPick round_robin(const HbmChannel& ch, std::size_t first, TryQueue&& try_queue) {
        const std::vector<uint32_t>& active = ch.active_queues();
        const std::size_t n = active.size();
        for (std::size_t k = 0, j = first; k < n; ++k, ++j) {
            if (j == n) j = 0;  // wrap without a division: this loop is the controller's hot spot
            const HbmPick pick = try_queue(active[j]);
            if (pick.cmd != HbmCmd::kNone) return pick;
        }
        return {};
    }

    // Calls `try_queue(q)` on the queues whose bit is set in `bits` (a bit per queue), in the
    // same order as round_robin: from the first after `rr` up, then from 0 up to `rr`.
    template <typename TryQueue>
    static HbmPick round_robin_bits(const std::vector<uint64_t>& bits, uint32_t rr,
                                    TryQueue&& try_queue) {
        const auto in_range = [&](uint32_t from, uint32_t to) -> HbmPick {  // queues [from, to)
            for (uint32_t w = from / 64; w * 64 < to; ++w) {
                uint64_t set = bits[w];
                if (w == from / 64) set &= ~uint64_t{0} << (from % 64);
                if ((w + 1) * 64 > to) set &= (uint64_t{1} << (to % 64)) - 1;
                for (; set != 0; set &= set - 1) {
                    const HbmPick pick =
                        try_queue(w * 64 + static_cast<uint32_t>(__builtin_ctzll(set)));
                    if (pick.cmd != HbmCmd::kNone) return pick;
                }
            }
            return {};
        };
        const uint32_t n = static_cast<uint32_t>(bits.size() * 64);
        const uint32_t first = std::min(rr + 1, n);
        const HbmPick pick = in_range(first, n);
        return pick.cmd != HbmCmd::kNone ? pick : in_range(0, first);
    }

    // pick()'s column and row scans for a queue per bank, the same decisions in the same order
    // with less work: queue q holds bank q's requests only, so "oldest of its bank" is entry 0,
    // and every read (write) of the queue is ready at the same cycle: once one that passed every
    // other check was found not ready, the queue's later reads (writes) cannot lower next_ready.
    // Which directions have such a candidate depends on the queue, the open row and the hit
    // count only, not on the cycle: the column scan notes it in the bank (HbmScanNote) and,
    // until the bank changes, a queue whose noted commands are not ready yet is not read at
    // all. The row scan needs only the bank: the channel marks the banks whose oldest request
    // misses the open row.
    HbmPick pick_column_per_bank(const HbmChannel& ch, uint64_t now, uint32_t& rr,
                                 uint64_t& next_ready) const {
        // Only a bank with queued hits can take a column command: visit those alone.
        return pick_per_bank(
            ch.banks_with_hits(), ch, rr, [&](uint32_t q) __attribute__((always_inline)) {
                return column_candidate(ch, q, now, next_ready);
            });
    }
    // Bank q's first column command that can issue at `now`, or none (lowering next_ready).
    // Inlined into the scans: it is the controller's hot spot.
    __attribute__((always_inline)) HbmPick column_candidate(const HbmChannel& ch, uint32_t q,
                                                            uint64_t now,
                                                            uint64_t& next_ready) const {
        const HbmBank& b = ch.bank(q);
        if (ch.refresh_blocks(q)) return {};
        if (b.scan.column_at == b.changes) {
            const uint64_t rd = b.scan.read ? ch.next_rd(q) : kHbmNever;
            const uint64_t wr = b.scan.write ? ch.next_wr(q) : kHbmNever;
            if (rd > now && wr > now) {
                next_ready = std::min({next_ready, rd, wr});
                return {};
            }
        }
        const auto& queue = ch.queue(q);
        const uint32_t size = m_in_order ? 1 : static_cast<uint32_t>(queue.size());
        bool seen_read = false, seen_write = false, seen_other_row = false;
        bool read_waits = false, write_waits = false;  // a read (write) was found not ready
        for (uint32_t i = 0; i < size; ++i) {
            const HbmTxn& t = queue[i];
            const bool write = t.is_write;
            const bool hit = static_cast<int64_t>(t.row) == b.open_row;
            const bool older_other_dir = write ? seen_read : seen_write;
            seen_read |= !write;
            seen_write |= write;
            if (!hit) {
                seen_other_row = true;
                continue;
            }
            if (write ? write_waits : read_waits) continue;
            // An older access to the same address in the other direction goes first.
            if (older_other_dir && same_address_other_direction_before(queue, i)) continue;
            // hit_allowed: after row_hit_cap hits, an older request to another row stops hits.
            if (!m_in_order && b.hits >= m_cap && seen_other_row) continue;
            const uint64_t ready = write ? ch.next_wr(q) : ch.next_rd(q);
            if (ready > now) {
                next_ready = std::min(next_ready, ready);
                (write ? write_waits : read_waits) = true;
                continue;
            }
            return {write ? HbmCmd::kWrite : HbmCmd::kRead, q, i};
        }
        b.scan.column_at = b.changes;
        b.scan.read = read_waits;
        b.scan.write = write_waits;
        return {};
    }
    HbmPick pick_row_per_bank(const HbmChannel& ch, uint64_t now, uint32_t& rr,
                              uint64_t& next_ready) const {
        // Only a bank whose oldest request misses the open row can need a row command.
        return pick_per_bank(
            ch.banks_missing_row(), ch,
            rr, [&](uint32_t q) __attribute__((always_inline))->HbmPick {
                const HbmBank& b = ch.bank(q);
                if (ch.refresh_blocks(q)) return {};
                uint64_t ready;
                HbmCmd cmd;
                if (b.open_row < 0) {
                    cmd = HbmCmd::kAct;
                    ready = ch.act_ready(q);
                } else {
                    if (!precharge_allowed(b)) return {};
                    cmd = HbmCmd::kPre;
                    ready = b.next_pre;
                }
                if (ready > now) {
                    next_ready = std::min(next_ready, ready);
                    return {};
                }
                return {cmd, q, 0};
            });
    }
    // Over the banks whose bit is set in `bits`: with round-robin order, the first candidate
    // after `rr`; oldest first, the candidate of the oldest request of all. Sets rr to its bank.
    template <typename Candidate>
    HbmPick pick_per_bank(const std::vector<uint64_t>& bits, const HbmChannel& ch, uint32_t& rr,
                          Candidate&& candidate) const {
        if (m_order == Order::kRoundRobin) {
            const HbmPick pick = round_robin_bits(bits, rr, candidate);
            if (pick.cmd != HbmCmd::kNone) rr = pick.queue;
            return pick;
        }
        HbmPick best;
        uint64_t best_accept = kHbmNever;
        round_robin_bits(
            bits, rr, [&](uint32_t q) __attribute__((always_inline))->HbmPick {
                const HbmPick pick = candidate(q);
                if (pick.cmd != HbmCmd::kNone) {
                    const uint64_t accept = ch.queue(q)[pick.index].accept;
                    if (accept < best_accept) best = pick, best_accept = accept;
                }
                return {};  // visit every bank
            });
        if (best.cmd != HbmCmd::kNone) rr = best.queue;
        return best;
    }
    static bool same_address_other_direction_before(const std::vector<HbmTxn>& queue, uint32_t i) {
        for (uint32_t j = 0; j < i; ++j) {
            if (queue[j].addr == queue[i].addr && queue[j].is_write != queue[i].is_write)
                return true;
        }
        return false;
    }
    static bool oldest_of_bank(const std::vector<HbmTxn>& queue, uint32_t i) {
        for (uint32_t j = 0; j < i; ++j) {
            if (queue[j].bank == queue[i].bank) return false;
        }
        return true;
    }
    // Once row_hit_cap hits were served, an older request to another row of the bank stops
    // further hits, or their tRTP / tWR would keep pushing its precharge back for ever.
    bool hit_allowed(const HbmChannel& ch, const std::vector<HbmTxn>& queue, uint32_t i) const {
        const HbmBank& b = ch.bank(queue[i].bank);
        if (m_in_order || b.hits < m_cap) return true;
        for (uint32_t j = 0; j < i; ++j) {
            if (queue[j].bank == queue[i].bank && static_cast<int64_t>(queue[j].row) != b.open_row)
                return false;
        }
        return true;
    }
    // Called for the oldest request of its bank, so every queued hit is younger than it.
    bool precharge_allowed(const HbmBank& b) const { return b.hits >= m_cap || b.queued_hits == 0; }
    uint32_t m_cap;
    bool m_in_order;
    Order m_order;
};

class OpenPage final : public HbmPagePolicy {
public:
    bool auto_precharge(const HbmChannel&, uint32_t, uint32_t) const override { return false; }
};

class ClosedPage final : public HbmPagePolicy {
public:
    bool auto_precharge(const HbmChannel&, uint32_t, uint32_t) const override { return true; }
};

// Closes the row after an access unless another queued request hits it.
class AdaptivePage final : public HbmPagePolicy {
public:
    bool auto_precharge(const HbmChannel& ch, uint32_t q, uint32_t index) const override {
        const auto& queue = ch.queue(q);
        const HbmTxn& t = queue[index];
        for (uint32_t j = 0; j < queue.size(); ++j) {
            if (j != index && queue[j].bank == t.bank && queue[j].row == t.row) return false;
        }
        return true;
    }
};

}  // namespace

namespace {
// The key both FR-FCFS schedulers declare.
Param row_hit_cap_param(std::string source) {
    return Param::integer("row_hit_cap", "hits",
                          "row hits served before a waiting conflict may close the row")
        .dflt("4")
        .range(0, 1e6)
        .source(std::move(source));
}
}  // namespace

Registry<HbmScheduler>& hbm_scheduler_registry() {
    static Registry<HbmScheduler> registry("HBM scheduler");
    return registry;
}

Registry<HbmPagePolicy>& hbm_page_policy_registry() {
    static Registry<HbmPagePolicy> registry("HBM page policy");
    return registry;
}

ASIM_REGISTER(
    hbm_scheduler_registry(), frfcfs,
    "first-ready FCFS: a column command to an open row overtakes older requests, up to row_hit_cap "
    "hits after the row opened while a conflict waits",
    {row_hit_cap_param("DRAMSim3's FR-FCFS (refdata); estimate for other devices")},
    [](const ParamValues& v) {
        return std::make_unique<FrFcfs>(static_cast<uint32_t>(v.integer("row_hit_cap")), false);
    });

ASIM_REGISTER(
    hbm_scheduler_registry(), frfcfs_oldest,
    "first-ready FCFS by age across banks: of the ready commands, the oldest request's (Rixner et "
    "al., ISCA 2000); row hits bounded by row_hit_cap as in frfcfs",
    {row_hit_cap_param("estimate: as frfcfs")}, [](const ParamValues& v) {
        return std::make_unique<FrFcfs>(static_cast<uint32_t>(v.integer("row_hit_cap")), false,
                                        FrFcfs::Order::kOldest);
    });

ASIM_REGISTER(hbm_scheduler_registry(), fcfs,
              "strict age order per bank: only each bank's oldest request is considered", {},
              [](const ParamValues&) { return std::make_unique<FrFcfs>(0, true); });

ASIM_REGISTER(hbm_page_policy_registry(), open, "rows stay open after an access", {},
              [](const ParamValues&) { return std::make_unique<OpenPage>(); });
ASIM_REGISTER(hbm_page_policy_registry(), closed, "every column command auto-precharges", {},
              [](const ParamValues&) { return std::make_unique<ClosedPage>(); });
ASIM_REGISTER(hbm_page_policy_registry(), adaptive,
              "closes the row after an access unless another queued request hits it", {},
              [](const ParamValues&) { return std::make_unique<AdaptivePage>(); });

}  // namespace asim
