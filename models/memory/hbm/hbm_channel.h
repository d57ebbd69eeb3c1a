// One HBM (pseudo-)channel: per-bank state machines with JEDEC timing, a read transaction queue,
// a posted-write buffer with drain watermarks, command queues (per bank or shared), refresh, and
// a scheduler and page policy chosen by name (hbm_policies.h). Pure C++, no SystemC.
//
// Timing model: every command updates the earliest cycle at which each later command may issue
// on each bank ("next_act/pre/rd/wr"), covering the bank (tRCD, tRAS, tRC, tRP, tRTP, tWR), its
// bank group (tCCD_L, tRRD_L, tWTR_L), the rank (tCCD_S, tRRD_S, tWTR_S, tFAW, tRFC) and the
// shared data bus (burst, read/write turnaround). Each cycle the channel issues at most one row
// command (ACT, PRE, REF) and one column command (RD, WR) with dual issue, else one command, and
// moves at most one transaction from the transaction queues into the command queues.
//
// Event-driven: tick() reports the next cycle at which anything can happen (a command becoming
// ready, a refresh falling due); a channel with nothing to do is not ticked at all.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "models/memory/hbm/hbm_device.h"

namespace asim {

class HbmScheduler;
class HbmPagePolicy;

constexpr uint64_t kHbmNever = ~uint64_t{0};

struct HbmTxn {
    uint64_t tag;     // caller's id, returned with the completion
    uint64_t addr;    // access-aligned
    uint64_t accept;  // cycle it entered the controller
    uint32_t row;
    uint32_t column;
    uint16_t bank;  // flat index within the channel: (rank * bank_groups + bg) * banks + ba
    uint8_t bank_group;
    uint8_t rank;
    bool is_write;
};

struct HbmCompletion {
    uint64_t tag;
    uint64_t cycle;  // last data beat (reads) or acceptance + 1 (posted writes, buffer hits)
    bool is_write;
};

enum class HbmCmd : uint8_t { kNone, kAct, kPre, kRead, kWrite, kRef };

// One issued command, for tests and debugging (HbmChannel::set_command_log).
struct HbmCommandRecord {
    uint64_t cycle;
    HbmCmd cmd;
    uint32_t bank;  // for an all-bank REF: the first bank of the rank
    int64_t row;
};

// Scheduler scratch (hbm_policies.cpp): what the last column scan of a bank's queue found out
// from the queue, the open row and the hit count alone, not from timing. It holds while the
// bank's `changes` equals the stamp, so a scan can skip a queue none of whose commands can be
// ready yet without reading it (reading the queues was most of a JEDEC run's time: each a cache
// miss).
struct HbmScanNote {
    uint32_t column_at = ~uint32_t{0};  // `changes` when the column scan noted read / write
    bool read = false, write = false;   // a read / a write that only timing kept from issuing
};

struct HbmBank {
    int64_t open_row = -1;
    uint32_t hits = 0;  // column commands to the open row since its ACT
    uint32_t queued_hits =
        0;  // queued requests for the open row (kept so schedulers need not scan)
    // The bank's own constraints only (tRCD, tRAS, tRC, tRP, tRTP, tWR, refresh). Those a command
    // puts on its bank group, rank or the other ranks (tCCD, tRRD, tWTR, bus turnaround) are held
    // once per group and per rank: HbmChannel::next_act/rd/wr give the bank's effective cycle.
    uint64_t next_pre = 0, next_rd = 0, next_wr = 0;
    bool refresh_pending = false;  // per-bank refresh waiting: the bank takes no new commands
    uint8_t rank = 0;              // the bank's rank and flat bank group (rank * bank_groups + bg),
    uint16_t group = 0;            // kept here so the hot paths need no division
    // Bumped whenever the bank's command queue (with a queue per bank), open row or hit count
    // changes: what a scheduler found out from them alone holds until it moves.
    uint32_t changes = 0;
    mutable HbmScanNote scan;
    uint64_t next_act = 0;     // the scans read it least: after what they read
    uint64_t last_column = 0;  // cycle of the last column command (refresh_order: idle_recent)
};

struct HbmChannelStats {
    uint64_t activates = 0, precharges = 0, refreshes = 0;
    uint64_t reads = 0, writes = 0, read_row_hits = 0, write_row_hits = 0;
    uint64_t write_buffer_read_hits = 0;
};

// What a scheduler sees and may choose.
struct HbmPick {
    HbmCmd cmd = HbmCmd::kNone;
    uint32_t queue = 0;
    uint32_t index = 0;  // entry within the queue
};

class HbmChannel {
public:
    HbmChannel(const HbmDeviceParams& params, const HbmScheduler& scheduler,
               const HbmPagePolicy& policy);

    // Room in the read queue (write buffer) with `kept` entries left free: a prefetch access
    // passes the controller's demand_entries, a demand access 0.
    bool can_accept(bool is_write, uint32_t kept = 0) const;
    // Accepts a decoded transaction at `cycle` (after this cycle's tick). Posted writes and reads
    // that hit the write buffer complete at cycle + 1 and are appended to `done`.
    void accept(const HbmTxn& t, std::vector<HbmCompletion>& done);
    // Runs cycle `now` (>= next_active()); read completions (with their future cycle) are
    // appended to `done`. Returns the next cycle at which this channel has work.
    uint64_t tick(uint64_t now, std::vector<HbmCompletion>& done);
    uint64_t next_active() const { return m_next_active; }
    bool idle() const;

    // For schedulers and page policies.
    uint32_t queue_count() const { return static_cast<uint32_t>(m_queues.size()); }
    const std::vector<HbmTxn>& queue(uint32_t q) const { return m_queues[q]; }
    // The indices of the non-empty command queues, ascending: schedulers scan only these (with a
    // queue per bank, most queues are empty most of the time).
    const std::vector<uint32_t>& active_queues() const { return m_active_queues; }
    const HbmBank& bank(uint32_t b) const { return m_banks[b]; }
    // A bit per bank, set while the bank has queued hits (queued_hits != 0): the column scans
    // visit only these banks instead of every non-empty queue.
    const std::vector<uint64_t>& banks_with_hits() const { return m_hit_banks; }
    // With a queue per bank, a bit per bank set while the oldest request of its queue is for
    // another row than the open one (or none is open): the only banks that may need a row
    // command, so the row scans visit only these.
    const std::vector<uint64_t>& banks_missing_row() const { return m_row_miss_banks; }
    // The earliest cycle bank `b` may take an ACT (tFAW aside), RD or WR: the latest of its own,
    // its bank group's and its rank's constraints.
    uint64_t next_act(uint32_t b) const {
        const HbmBank& k = m_banks[b];
        return std::max({k.next_act, m_groups[k.group].act, m_ranks[k.rank].act});
    }
    uint64_t next_rd(uint32_t b) const {
        const HbmBank& k = m_banks[b];
        return std::max({k.next_rd, m_groups[k.group].rd, m_ranks[k.rank].rd});
    }
    uint64_t next_wr(uint32_t b) const {
        const HbmBank& k = m_banks[b];
        return std::max({k.next_wr, m_groups[k.group].wr, m_ranks[k.rank].wr});
    }
    // The command entry `i` of queue `q` needs next, and the cycle it can issue (kHbmNever when
    // blocked: refresh pending, a hazard, or a precharge the arbitration forbids).
    HbmCmd next_command(uint32_t q, uint32_t i, uint64_t& ready) const;
    // Whether a pending refresh keeps bank `b` from taking new commands.
    bool refresh_blocks(uint32_t b) const {
        return m_banks[b].refresh_pending || m_ranks[m_banks[b].rank].refresh_pending;
    }
    // The earliest cycle an ACT for `t` may issue: its bank's next_act and tFAW.
    uint64_t act_ready(const HbmTxn& t) const { return act_ready(t.bank); }
    uint64_t act_ready(uint32_t bank) const {
        uint64_t ready = next_act(bank);
        const Rank& r = m_ranks[m_banks[bank].rank];
        if (r.act_count == 4) ready = std::max(ready, r.acts[r.act_head] + m_t.tFAW);
        return ready;
    }
    const HbmDeviceParams& params() const { return m_p; }
    const HbmChannelStats& stats() const { return m_stats; }
    void set_command_log(std::vector<HbmCommandRecord>* log) { m_log = log; }
    // Scan row and column commands each from the earliest cycle one of its class can issue
    // (issue_dual), not both from the earliest of either. The same commands issue at the same
    // cycles, but the channel may be ticked at more cycles in which nothing happens, so a caller
    // that reacts to every tick (the TLM wrapper wakes waiting initiators) must leave it off.
    void set_per_class_scans(bool on) { m_per_class = on; }

private:
    uint32_t queue_of(const HbmTxn& t) const;
    bool handle_refresh(uint64_t now, uint64_t& next_ready);
    void catch_up_refresh(uint64_t now);
    void issue(const HbmPick& p, uint64_t now, std::vector<HbmCompletion>& done);
    void do_act(uint32_t b, uint32_t row, uint64_t now);
    void do_pre(uint32_t b, uint64_t now);
    void do_column(const HbmTxn& t, uint64_t now, bool auto_pre);
    bool schedule_transaction();
    bool issue_dual(uint64_t now, bool row_used, std::vector<HbmCompletion>& done);

    const HbmDeviceParams& m_p;
    const HbmTiming& m_t;
    const HbmScheduler& m_sched;
    const HbmPagePolicy& m_policy;
    uint32_t m_banks_per_rank;
    uint32_t m_banks_per_group;

    std::vector<HbmBank> m_banks;
    std::vector<uint64_t> m_hit_banks;              // see banks_with_hits()
    std::vector<uint64_t> m_row_miss_banks;         // see banks_missing_row()
    std::vector<uint64_t> m_refresh_pending_banks;  // a bit per bank with refresh_pending
    // After bank b's queue, open row or queued hits changed: its bits in the two masks.
    void note_bank(uint32_t b) {
        const HbmBank& k = m_banks[b];
        const uint64_t bit = uint64_t{1} << (b % 64);
        auto put = [&](std::vector<uint64_t>& mask, bool on) {
            mask[b / 64] = on ? mask[b / 64] | bit : mask[b / 64] & ~bit;
        };
        put(m_hit_banks, k.queued_hits != 0);
        if (m_p.ctrl.queue_structure == QueueStructure::kPerBank) {
            const auto& q = m_queues[b];
            put(m_row_miss_banks, !q.empty() && static_cast<int64_t>(q.front().row) != k.open_row);
        }
    }
    std::vector<std::vector<HbmTxn>> m_queues;
    std::vector<uint32_t> m_active_queues;  // see active_queues()
    std::vector<HbmTxn> m_read_q;
    std::vector<HbmTxn> m_write_buf;
    std::unordered_map<uint64_t, uint32_t> m_pending_writes;  // addr -> writes not yet issued
    bool m_draining = false;
    // schedule_transaction found nothing to move (in direction m_txn_stuck_draining); cleared
    // when a request arrives or leaves a command queue.
    bool m_txn_stuck = false, m_txn_stuck_draining = false;
    std::vector<uint32_t>
        m_waiting_for[2];   // [write?][command queue]: requests in m_read_q / m_write_buf
    uint32_t m_queued = 0;  // entries in command queues

    // Earliest ACT / RD / WR for every bank of a bank group or rank: one raise here stands for
    // the same raise on each of its banks (the effective value is the max over the levels).
    struct Level {
        uint64_t act = 0, rd = 0, wr = 0;
    };
    std::vector<Level>
        m_groups;  // by flat group index: rank * bank_groups + bg = bank / banks_per_group
    // Rank state: the last four ACTs for tFAW, refresh bookkeeping.
    struct Rank : Level {
        uint64_t acts[4] = {0, 0, 0, 0};
        uint32_t act_head = 0;
        uint32_t act_count = 0;
        bool refresh_pending = false;
        uint64_t next_refresh = 0;
        uint64_t next_ref_cmd =
            0;  // REF allowed from this cycle (tRP after the last PRE, tRC after ACT)
    };
    std::vector<Rank> m_ranks;
    uint64_t m_next_bank_refresh = kHbmNever;  // per-bank mode
    uint32_t m_refresh_bank = 0;               // the next bank in turn
    // refresh_order idle_first / idle_recent: a bit per bank still owing a refresh in this round,
    // and how many.
    std::vector<uint64_t> m_refresh_owed;
    uint32_t m_refresh_owed_count = 0;
    uint32_t take_refresh_bank();  // the bank whose per-bank refresh falls due now
    bool bank_idle(uint32_t b) const;
    uint32_t m_bank_refresh_pending = 0;  // banks with refresh_pending (per-bank mode)

    uint32_t m_rr_col = 0, m_rr_row = 0;
    // No command can issue before this cycle: the result of the last scan, lowered when a request
    // enters a command queue. Commands only ever push timing later, so the scan is skipped until
    // then unless something was issued.
    uint64_t m_cmd_ready = 0;
    // With dual issue, the same per command class (see issue_dual).
    uint64_t m_col_ready = 0, m_row_ready = 0;
    bool m_per_class = false;
    uint64_t m_next_active = kHbmNever;
    uint64_t m_last_tick = 0;
    HbmChannelStats m_stats;
    std::vector<HbmCommandRecord>* m_log = nullptr;
    void log(uint64_t cycle, HbmCmd c, uint32_t bank, int64_t row) {
        if (m_log != nullptr) m_log->push_back({cycle, c, bank, row});
    }
};

}  // namespace asim
