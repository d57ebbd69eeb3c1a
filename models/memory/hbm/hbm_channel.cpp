#include "models/memory/hbm/hbm_channel.h"

#include <algorithm>

#include "models/memory/hbm/hbm_policies.h"

namespace asim {

namespace {
inline void raise(uint64_t& v, uint64_t at_least) { v = std::max(v, at_least); }
}  // namespace

HbmChannel::HbmChannel(const HbmDeviceParams& params, const HbmScheduler& scheduler,
                       const HbmPagePolicy& policy)
    : m_p(params),
      m_t(params.timing),
      m_sched(scheduler),
      m_policy(policy),
      m_banks_per_rank(params.org.bank_groups * params.org.banks_per_group),
      m_banks_per_group(params.org.banks_per_group),
      m_banks(params.org.banks()),
      m_hit_banks((params.org.banks() + 63) / 64, 0),
      m_row_miss_banks(m_hit_banks.size(), 0),
      m_refresh_pending_banks(m_hit_banks.size(), 0),
      m_queues(params.ctrl.queue_structure == QueueStructure::kPerBank ? params.org.banks() : 1),
      m_groups(params.org.ranks * params.org.bank_groups),
      m_ranks(params.org.ranks) {
    for (auto& w : m_waiting_for) w.assign(m_queues.size(), 0);
    for (uint32_t b = 0; b < m_banks.size(); ++b) {
        m_banks[b].rank = static_cast<uint8_t>(b / m_banks_per_rank);
        m_banks[b].group = static_cast<uint16_t>(b / m_banks_per_group);
    }
    for (auto& q : m_queues) q.reserve(params.ctrl.command_queue_depth);
    m_read_q.reserve(params.ctrl.read_queue_depth);
    m_write_buf.reserve(params.ctrl.write_buffer_depth);
    // All-bank refresh is staggered over ranks: one rank every tREFI / ranks.
    const uint64_t step = m_t.tREFI / params.org.ranks;
    for (uint32_t r = 0; r < m_ranks.size(); ++r) {
        m_ranks[r].next_refresh =
            params.ctrl.refresh == RefreshMode::kAllBank ? step * (r + 1) : kHbmNever;
    }
    if (params.ctrl.refresh == RefreshMode::kPerBank) m_next_bank_refresh = m_t.tREFIsb;
    m_next_active = std::min(m_next_bank_refresh, m_ranks[0].next_refresh);
    for (const Rank& r : m_ranks) m_next_active = std::min(m_next_active, r.next_refresh);
}

bool HbmChannel::can_accept(bool is_write, uint32_t kept) const {
    return is_write ? m_write_buf.size() + kept < m_p.ctrl.write_buffer_depth
                    : m_read_q.size() + kept < m_p.ctrl.read_queue_depth;
}

bool HbmChannel::idle() const { return m_read_q.empty() && m_write_buf.empty() && m_queued == 0; }

void HbmChannel::accept(const HbmTxn& t, std::vector<HbmCompletion>& done) {
    if (t.is_write) {
        // Posted: the write completes once buffered; a second write to a buffered address merges.
        if (m_pending_writes.emplace(t.addr, 1).second) {
            m_write_buf.push_back(t);
            ++m_waiting_for[1][queue_of(t)];
        }
        done.push_back({t.tag, t.accept + 1, true});
    } else if (m_pending_writes.count(t.addr) != 0) {
        ++m_stats.write_buffer_read_hits;  // served from the write buffer
        done.push_back({t.tag, t.accept + 1, false});
    } else {
        m_read_q.push_back(t);
        ++m_waiting_for[0][queue_of(t)];
    }
    m_next_active = std::min(m_next_active, t.accept + 1);
    m_txn_stuck = false;
}

uint32_t HbmChannel::queue_of(const HbmTxn& t) const {
    return m_p.ctrl.queue_structure == QueueStructure::kPerBank ? t.bank : 0;
}

HbmCmd HbmChannel::next_command(uint32_t q, uint32_t i, uint64_t& ready) const {
    const auto& queue = m_queues[q];
    const HbmTxn& t = queue[i];
    const HbmBank& b = m_banks[t.bank];
    if (b.refresh_pending || m_ranks[t.rank].refresh_pending) {
        ready = kHbmNever;
        return HbmCmd::kNone;
    }
    if (b.open_row == static_cast<int64_t>(t.row)) {
        // An older access to the same address in the other direction goes first.
        for (uint32_t j = 0; j < i; ++j) {
            if (queue[j].addr == t.addr && queue[j].is_write != t.is_write) {
                ready = kHbmNever;
                return HbmCmd::kNone;
            }
        }
        ready = t.is_write ? next_wr(t.bank) : next_rd(t.bank);
        return t.is_write ? HbmCmd::kWrite : HbmCmd::kRead;
    }
    if (b.open_row < 0) {
        ready = act_ready(t);
        return HbmCmd::kAct;
    }
    ready = b.next_pre;
    return HbmCmd::kPre;
}

void HbmChannel::do_act(uint32_t bank, uint32_t row, uint64_t now) {
    HbmBank& b = m_banks[bank];
    b.open_row = row;
    b.hits = 0;
    b.queued_hits = 0;
    ++b.changes;
    for (const HbmTxn& q :
         m_queues[m_p.ctrl.queue_structure == QueueStructure::kPerBank ? bank : 0]) {
        if (q.bank == bank && q.row == row) ++b.queued_hits;
    }
    note_bank(bank);
    raise(b.next_rd, now + m_t.tRCDRD);
    raise(b.next_wr, now + m_t.tRCDWR);
    raise(b.next_pre, now + m_t.tRAS);
    raise(b.next_act, now + m_t.tRC);
    const uint32_t rank = b.rank;
    // tRRD_L on the bank group, tRRD_S on the rank (tRRD_S <= tRRD_L). They reach this bank too,
    // which the bank's own tRC covers: its next ACT needs a PRE (>= tRAS) and tRP, and no
    // device has tRAS + tRP below tRRD_L.
    raise(m_groups[b.group].act, now + m_t.tRRD_L);
    Rank& r = m_ranks[rank];
    raise(r.act, now + m_t.tRRD_S);
    r.acts[r.act_head] = now;
    r.act_head = (r.act_head + 1) % 4;
    r.act_count = std::min<uint32_t>(r.act_count + 1, 4);
    raise(r.next_ref_cmd, now + m_t.tRC);
    ++m_stats.activates;
    log(now, HbmCmd::kAct, bank, row);
}

void HbmChannel::do_pre(uint32_t bank, uint64_t now) {
    HbmBank& b = m_banks[bank];
    b.open_row = -1;
    b.hits = 0;
    b.queued_hits = 0;
    ++b.changes;
    note_bank(bank);
    raise(b.next_act, now + m_t.tRP);
    raise(m_ranks[b.rank].next_ref_cmd, now + m_t.tRP);
    ++m_stats.precharges;
    log(now, HbmCmd::kPre, bank, -1);
}

void HbmChannel::do_column(const HbmTxn& t, uint64_t now, bool auto_pre) {
    const uint32_t burst = m_t.burst_cycles;
    const uint32_t group = m_banks[t.bank].group;
    const uint64_t ccd_l = now + std::max(burst, m_t.tCCD_L);
    const uint64_t ccd_s = now + std::max(burst, m_t.tCCD_S);
    const uint64_t other_rank = now + burst + m_t.tRTRS;
    // Same bank group: the _L timings on the group; same rank: the _S timings on the rank (each
    // _S <= its _L, so the group's banks keep the _L value); other ranks: the rank switch.
    Level& g = m_groups[group];
    if (!t.is_write) {
        // Read to write: the write data must not meet the read data on the bus.
        const uint64_t rtw =
            now + m_t.CL + burst + m_t.tRTRS - std::min(m_t.CWL, m_t.CL + burst + m_t.tRTRS);
        raise(g.rd, ccd_l);
        for (uint32_t r = 0; r < m_ranks.size(); ++r) {
            raise(m_ranks[r].rd, r == t.rank ? ccd_s : other_rank);
            raise(m_ranks[r].wr, rtw);
        }
        raise(m_banks[t.bank].next_pre, now + m_t.tRTP);
    } else {
        const uint64_t data_end = now + m_t.CWL + burst;
        const uint64_t wtr_l = data_end + m_t.tWTR_L, wtr_s = data_end + m_t.tWTR_S;
        const uint64_t other_rd =
            data_end + m_t.tRTRS > now + m_t.CL ? data_end + m_t.tRTRS - m_t.CL : now;
        raise(g.wr, ccd_l);
        raise(g.rd, wtr_l);
        for (uint32_t r = 0; r < m_ranks.size(); ++r) {
            raise(m_ranks[r].wr, r == t.rank ? ccd_s : other_rank);
            raise(m_ranks[r].rd, r == t.rank ? wtr_s : other_rd);
        }
        raise(m_banks[t.bank].next_pre, data_end + m_t.tWR);
    }
    HbmBank& b = m_banks[t.bank];
    --b.queued_hits;
    note_bank(t.bank);
    log(now, t.is_write ? HbmCmd::kWrite : HbmCmd::kRead, t.bank, t.row);
    if (t.is_write) {
        ++m_stats.writes;
        if (b.hits > 0) ++m_stats.write_row_hits;
    } else {
        ++m_stats.reads;
        if (b.hits > 0) ++m_stats.read_row_hits;
    }
    ++b.hits;
    ++b.changes;
    b.last_column = now;
    if (auto_pre) do_pre(t.bank, b.next_pre);  // the precharge happens as soon as it may
}

void HbmChannel::issue(const HbmPick& p, uint64_t now, std::vector<HbmCompletion>& done) {
    auto& queue = m_queues[p.queue];
    const HbmTxn t = queue[p.index];
    switch (p.cmd) {
        case HbmCmd::kAct:
            do_act(t.bank, t.row, now);
            return;
        case HbmCmd::kPre:
            do_pre(t.bank, now);
            return;
        case HbmCmd::kRead:
        case HbmCmd::kWrite: {
            const bool auto_pre = m_policy.auto_precharge(*this, p.queue, p.index);
            do_column(t, now, auto_pre);
            if (t.is_write) {
                auto it = m_pending_writes.find(t.addr);
                if (it != m_pending_writes.end()) m_pending_writes.erase(it);
            } else {
                done.push_back({t.tag, now + m_t.read_delay(), false});
            }
            queue.erase(queue.begin() + p.index);
            ++m_banks[t.bank].changes;
            note_bank(t.bank);
            --m_queued;
            // A request can move now only if one waits for this queue's freed slot.
            if (m_waiting_for[m_txn_stuck_draining][p.queue] != 0) m_txn_stuck = false;
            if (queue.empty()) {
                m_active_queues.erase(
                    std::lower_bound(m_active_queues.begin(), m_active_queues.end(), p.queue));
            }
            return;
        }
        case HbmCmd::kNone:
        case HbmCmd::kRef:
            return;
    }
}

bool HbmChannel::handle_refresh(uint64_t now, uint64_t& next_ready) {
    if (m_p.ctrl.refresh == RefreshMode::kAllBank) {
        for (uint32_t r = 0; r < m_ranks.size(); ++r) {
            Rank& rank = m_ranks[r];
            if (!rank.refresh_pending) continue;
            bool all_closed = true;
            for (uint32_t b = r * m_banks_per_rank; b < (r + 1) * m_banks_per_rank; ++b) {
                if (m_banks[b].open_row < 0) continue;
                all_closed = false;
                if (m_banks[b].next_pre <= now) {
                    do_pre(b, now);
                    return true;
                }
                next_ready = std::min(next_ready, m_banks[b].next_pre);
            }
            if (!all_closed) continue;
            if (rank.next_ref_cmd > now) {
                next_ready = std::min(next_ready, rank.next_ref_cmd);
                continue;
            }
            raise(rank.act, now + m_t.tRFC);  // every bank of the rank
            rank.refresh_pending = false;
            rank.next_refresh += m_t.tREFI;
            ++m_stats.refreshes;
            log(now, HbmCmd::kRef, r * m_banks_per_rank, -1);
            return true;
        }
        return false;
    }
    if (m_bank_refresh_pending == 0) return false;
    // The banks with a refresh pending, in index order (a bit each: most of the time one is).
    for (uint32_t w = 0; w < m_refresh_pending_banks.size(); ++w) {
        for (uint64_t set = m_refresh_pending_banks[w]; set != 0; set &= set - 1) {
            const uint32_t b = w * 64 + static_cast<uint32_t>(__builtin_ctzll(set));
            HbmBank& bank = m_banks[b];
            if (bank.open_row >= 0) {
                if (bank.next_pre <= now) {
                    do_pre(b, now);
                    return true;
                }
                next_ready = std::min(next_ready, bank.next_pre);
                continue;
            }
            // The bank is precharged: REFsb may go once an ACT could (tRP, tRC satisfied).
            const uint64_t act = next_act(b);
            if (act > now) {
                next_ready = std::min(next_ready, act);
                continue;
            }
            bank.next_act = now + m_t.tRFCsb;
            bank.refresh_pending = false;
            m_refresh_pending_banks[w] &= ~(uint64_t{1} << (b % 64));
            --m_bank_refresh_pending;
            ++m_stats.refreshes;
            log(now, HbmCmd::kRef, b, -1);
            return true;
        }
    }
    return false;
}

bool HbmChannel::schedule_transaction() {
    const auto& c = m_p.ctrl;
    if (!m_draining) {
        if (!m_write_buf.empty() && (m_write_buf.size() >= c.write_drain_high ||
                                     (m_write_buf.size() > c.write_drain_idle && m_queued == 0))) {
            m_draining = true;
        }
    } else if (m_write_buf.size() <= c.write_drain_low) {
        m_draining = false;
    }
    if (m_draining != m_txn_stuck_draining) m_txn_stuck = false;
    // Nothing could move at the last try and no queue, buffer or direction changed since.
    if (m_txn_stuck) return false;
    auto& src = m_draining ? m_write_buf : m_read_q;
    for (std::size_t i = 0; i < src.size(); ++i) {
        const uint32_t q_index = queue_of(src[i]);
        auto& q = m_queues[q_index];
        if (q.size() >= c.command_queue_depth) continue;
        if (q.empty()) {
            m_active_queues.insert(
                std::lower_bound(m_active_queues.begin(), m_active_queues.end(), q_index), q_index);
        }
        const HbmTxn& t = src[i];
        // A request behind others of its bank needs no row command of its own yet.
        bool behind = false;
        for (const HbmTxn& o : q) behind |= o.bank == t.bank;
        q.push_back(t);
        HbmBank& b = m_banks[t.bank];
        ++b.changes;
        const bool hit = b.open_row == static_cast<int64_t>(t.row);
        b.queued_hits += hit;
        note_bank(t.bank);
        if (hit) {
            const uint64_t ready = t.is_write ? next_wr(t.bank) : next_rd(t.bank);
            m_cmd_ready = std::min(m_cmd_ready, ready);
            m_col_ready = std::min(m_col_ready, ready);
        } else if (!behind) {
            const uint64_t ready = b.open_row < 0 ? act_ready(t) : b.next_pre;
            m_cmd_ready = std::min(m_cmd_ready, ready);
            m_row_ready = std::min(m_row_ready, ready);
        }
        --m_waiting_for[m_draining][q_index];
        src.erase(src.begin() + static_cast<std::ptrdiff_t>(i));
        ++m_queued;
        return true;
    }
    m_txn_stuck = true;
    m_txn_stuck_draining = m_draining;
    return false;
}

void HbmChannel::catch_up_refresh(uint64_t now) {
    // Refreshes that fell due while the channel was idle and not ticked (the TLM wrapper skips
    // idle channels) are done arithmetically at their due time: close the banks, REF, tRFC.
    const uint64_t after = m_last_tick;
    for (uint32_t r = 0; r < m_ranks.size(); ++r) {
        Rank& rank = m_ranks[r];
        if (rank.refresh_pending || rank.next_refresh > now || rank.next_refresh <= after) continue;
        const uint64_t missed =
            (now - rank.next_refresh) / m_t.tREFI;  // whole intervals: count only
        m_stats.refreshes += missed;
        rank.next_refresh += missed * m_t.tREFI;
        uint64_t ref = std::max(rank.next_refresh, rank.next_ref_cmd);
        for (uint32_t b = r * m_banks_per_rank; b < (r + 1) * m_banks_per_rank; ++b) {
            if (m_banks[b].open_row >= 0) {
                const uint64_t pre = std::max(rank.next_refresh, m_banks[b].next_pre);
                do_pre(b, pre);
                ref = std::max(ref, pre + m_t.tRP);
            }
        }
        raise(rank.act, ref + m_t.tRFC);  // every bank of the rank
        ++m_stats.refreshes;
        rank.next_refresh += m_t.tREFI;
    }
    if (m_next_bank_refresh <= now && m_next_bank_refresh > after) {
        const uint64_t round = uint64_t{m_t.tREFIsb} * m_banks.size();
        const uint64_t behind = now - m_next_bank_refresh;
        if (behind > round) {  // whole rounds of every bank: count only
            uint64_t skip = (behind - round) / m_t.tREFIsb;
            // Idle first: whole rounds only, which leave the banks owing and the turn as they were.
            if (m_p.ctrl.refresh_order != RefreshOrder::kRoundRobin) skip -= skip % m_banks.size();
            m_stats.refreshes += skip;
            m_next_bank_refresh += skip * m_t.tREFIsb;
            m_refresh_bank = static_cast<uint32_t>((m_refresh_bank + skip) % m_banks.size());
        }
        while (m_next_bank_refresh <= now) {
            const uint32_t k = take_refresh_bank();
            HbmBank& b = m_banks[k];
            uint64_t ref = std::max(m_next_bank_refresh, next_act(k));
            if (b.open_row >= 0) {
                const uint64_t pre = std::max(m_next_bank_refresh, b.next_pre);
                do_pre(k, pre);
                ref = std::max(ref, pre + m_t.tRP);
            }
            b.next_act = ref + m_t.tRFCsb;
            ++m_stats.refreshes;
            m_next_bank_refresh += m_t.tREFIsb;
        }
    }
}

bool HbmChannel::bank_idle(uint32_t b) const {
    if (m_p.ctrl.queue_structure == QueueStructure::kPerBank)
        return m_queues[b].empty() && m_waiting_for[0][b] == 0 && m_waiting_for[1][b] == 0;
    for (const HbmTxn& t : m_queues[0]) {
        if (t.bank == b) return false;
    }
    return true;
}

uint32_t HbmChannel::take_refresh_bank() {
    const auto n = static_cast<uint32_t>(m_banks.size());
    uint32_t pick = m_refresh_bank;
    if (m_p.ctrl.refresh_order != RefreshOrder::kRoundRobin) {
        if (m_refresh_owed_count == 0) {  // a new round: every bank owes one
            m_refresh_owed.assign((n + 63) / 64, 0);
            for (uint32_t b = 0; b < n; ++b) m_refresh_owed[b / 64] |= uint64_t{1} << (b % 64);
            m_refresh_owed_count = n;
        }
        auto owes = [&](uint32_t b) { return (m_refresh_owed[b / 64] >> (b % 64)) & 1; };
        // In turn from m_refresh_bank: the first owing bank that is idle (idle_recent: of those,
        // the one that served a column command last), else the first owing.
        const bool recent = m_p.ctrl.refresh_order == RefreshOrder::kIdleRecent;
        uint32_t first_owing = n;
        pick = n;
        for (uint32_t k = 0, b = m_refresh_bank; k < n && (recent || pick == n);
             ++k, b = (b + 1) % n) {
            if (!owes(b)) continue;
            if (first_owing == n) first_owing = b;
            if (!bank_idle(b) || m_banks[b].refresh_pending) continue;
            if (pick == n || m_banks[b].last_column > m_banks[pick].last_column) pick = b;
        }
        if (pick == n) pick = first_owing;
        m_refresh_owed[pick / 64] &= ~(uint64_t{1} << (pick % 64));
        --m_refresh_owed_count;
    }
    m_refresh_bank = (pick + 1) % n;
    return pick;
}

bool HbmChannel::issue_dual(uint64_t now, bool row_used, std::vector<HbmCompletion>& done) {
    // m_col_ready / m_row_ready: no column / row command can issue before them. Each class is
    // scanned only from its cycle on, which is when the scan over both classes would first have
    // found a command of that class ready, so the same commands issue at the same cycles.
    bool issued = false;
    if (now >= m_col_ready) {
        uint64_t ready = kHbmNever;
        const HbmPick col = m_sched.pick(*this, HbmCmdClass::kColumn, now, m_rr_col, ready);
        if (col.cmd != HbmCmd::kNone) {
            issue(col, now, done);
            issued = true;
            // Every column command waits for its rank's column timing (and its group's and
            // bank's, which are later), so none is ready before the earliest rank's.
            ready = kHbmNever;
            for (const Rank& r : m_ranks) ready = std::min({ready, r.rd, r.wr});
            ready = std::max(ready, now + 1);
            // The command changed its bank's queue, hits and maybe its row: look for row
            // commands again (below, or next cycle after a refresh command).
            m_row_ready = std::min(m_row_ready, row_used ? now + 1 : now);
        }
        m_col_ready = ready;
    }
    // Refresh used the row command slot and may have closed or freed banks: next cycle.
    if (row_used) {
        m_row_ready = now + 1;
    } else if (now >= m_row_ready) {
        uint64_t ready = kHbmNever;
        const HbmPick row = m_sched.pick(*this, HbmCmdClass::kRow, now, m_rr_row, ready);
        if (row.cmd != HbmCmd::kNone) {
            issue(row, now, done);
            issued = true;
            ready = now + 1;
            // An ACT makes its bank's queued hits column commands, from tRCD on.
            if (row.cmd == HbmCmd::kAct)
                m_col_ready = std::min(m_col_ready, now + std::min(m_t.tRCDRD, m_t.tRCDWR));
        }
        m_row_ready = ready;
    }
    return issued;
}

uint64_t HbmChannel::tick(uint64_t now, std::vector<HbmCompletion>& done) {
    if (now > m_last_tick + 1) catch_up_refresh(now - 1);
    m_last_tick = now;
    bool any_refresh = false;
    for (Rank& r : m_ranks) {
        if (now >= r.next_refresh) r.refresh_pending = true;
        any_refresh |= r.refresh_pending;
    }
    if (now >= m_next_bank_refresh) {
        const uint32_t b = take_refresh_bank();
        m_bank_refresh_pending += !m_banks[b].refresh_pending;
        m_banks[b].refresh_pending = true;
        m_refresh_pending_banks[b / 64] |= uint64_t{1} << (b % 64);
        m_next_bank_refresh += m_t.tREFIsb;
    }
    any_refresh |= m_bank_refresh_pending != 0;

    uint64_t next_ready = kHbmNever;
    bool changed = false;
    bool row_used = any_refresh && handle_refresh(now, next_ready);
    changed |= row_used;
    if (m_queued != 0 && m_p.ctrl.dual_issue && m_per_class) {
        changed |= issue_dual(now, row_used, done);
        next_ready = std::min({next_ready, m_col_ready, m_row_ready});
    } else if (m_queued != 0 && now < m_cmd_ready) {
        next_ready = std::min(next_ready, m_cmd_ready);
    } else if (m_queued != 0) {
        uint64_t cmd_ready = kHbmNever;
        bool issued = false;
        if (m_p.ctrl.dual_issue) {
            const HbmPick col = m_sched.pick(*this, HbmCmdClass::kColumn, now, m_rr_col, cmd_ready);
            if (col.cmd != HbmCmd::kNone) {
                issue(col, now, done);
                issued = true;
            }
            if (!row_used) {
                const HbmPick row =
                    m_sched.pick(*this, HbmCmdClass::kRow, now, m_rr_row, cmd_ready);
                if (row.cmd != HbmCmd::kNone) {
                    issue(row, now, done);
                    issued = true;
                }
            }
        } else if (!row_used) {
            const HbmPick any = m_sched.pick(*this, HbmCmdClass::kAny, now, m_rr_col, cmd_ready);
            if (any.cmd != HbmCmd::kNone) {
                issue(any, now, done);
                issued = true;
            }
        }
        changed |= issued;
        m_cmd_ready = issued ? now + 1 : cmd_ready;
        next_ready = std::min(next_ready, m_cmd_ready);
    }
    if (row_used) m_cmd_ready = now + 1;  // refresh changed bank state: scan again
    changed |= schedule_transaction();
    uint64_t next = changed ? now + 1 : std::max(next_ready, now + 1);
    for (const Rank& r : m_ranks) {
        if (!r.refresh_pending) next = std::min(next, std::max(r.next_refresh, now + 1));
    }
    next = std::min(next, std::max(m_next_bank_refresh, now + 1));
    m_next_active = next;
    return next;
}

}  // namespace asim
