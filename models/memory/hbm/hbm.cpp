#include "models/memory/hbm/hbm.h"

#include <algorithm>

#include "models/common/clock_domain.h"
#include "models/common/op_ledger.h"
#include "models/common/payload.h"

namespace asim {

Hbm::Hbm(sc_core::sc_module_name name, const HbmParams& params, StatsRegistry& stats)
    : sc_module(name),
      l2_in("l2_in"),
      m_params(params),
      m_core(params.device),
      m_tck(params.device.timing.tCK_ps),
      m_reads(StatsGroup(stats, *this).counter("reads", "read transactions")),
      m_writes(StatsGroup(stats, *this).counter("writes", "write transactions")),
      m_read_bytes(StatsGroup(stats, *this).counter("read_bytes", "bytes read", "B")),
      m_write_bytes(StatsGroup(stats, *this).counter("write_bytes", "bytes written", "B")),
      m_read_latency_ns(
          StatsGroup(stats, *this)
              .histogram("read_latency_ns", "read latency, arrival to last data", "ns")),
      m_activates(StatsGroup(stats, *this).counter("activates", "ACT commands")),
      m_precharges(
          StatsGroup(stats, *this).counter("precharges", "PRE commands, auto-precharge included")),
      m_refreshes(StatsGroup(stats, *this).counter("refreshes", "REF commands")),
      m_row_hits(
          StatsGroup(stats, *this).counter("row_hits", "column commands to an already open row")) {
    m_pending.resize(4 * std::size_t{m_core.channel_count()});
    l2_in.register_b_transport(this, &Hbm::b_transport);
    SC_HAS_PROCESS(Hbm);
    SC_THREAD(run);
}

uint64_t Hbm::now_cycle() const {
    const Picoseconds ps = ClockDomain::to_ps(sc_core::sc_time_stamp());
    return (ps + static_cast<Picoseconds>(m_tck) - 1) / static_cast<Picoseconds>(m_tck);
}

sc_core::sc_time Hbm::time_of(uint64_t cycle) const {
    return ClockDomain::from_ps(static_cast<Picoseconds>(cycle) * static_cast<Picoseconds>(m_tck));
}

void Hbm::deliver() {
    for (const HbmCompletion& c : m_done) {
        Waiter* w = m_waiting[c.tag];
        if (w == nullptr) continue;
        m_waiting[c.tag] = nullptr;
        m_free_tags.push_back(c.tag);
        w->last = std::max(w->last, c.cycle);
        if (--w->outstanding == 0) w->done.notify(time_of(w->last) - sc_core::sc_time_stamp());
    }
    m_done.clear();
}

void Hbm::accept(uint64_t addr, bool is_write, Waiter* w) {
    uint64_t tag = m_waiting.size();
    if (m_free_tags.empty()) {
        m_waiting.push_back(w);
    } else {
        tag = m_free_tags.back();
        m_free_tags.pop_back();
        m_waiting[tag] = w;
    }
    m_core.accept(now_cycle(), addr, is_write, tag, m_done);
}

bool Hbm::may_enter(uint32_t line) const {
    const bool prefetch = (line & 1) != 0;
    if (prefetch && !m_pending[line - 1].empty()) return false;  // demand of its kind waits
    return m_core.can_accept_on(line / 4, (line & 2) != 0, prefetch);
}

void Hbm::accept_pending() {
    bool moved = false;
    // Demand lines first, then prefetch lines (which also wait for their demand line).
    for (const uint32_t prefetch : {0u, 1u}) {
        for (std::size_t i = 0; i < m_pending_channels.size();) {
            const uint32_t line = m_pending_channels[i];
            auto& q = m_pending[line];
            if ((line & 1) != prefetch) {
                ++i;
                continue;
            }
            while (!q.empty() && may_enter(line)) {
                accept(q.front().addr, q.front().is_write, q.front().waiter);
                q.pop_front();
                moved = true;
            }
            if (q.empty()) {
                m_pending_channels[i] = m_pending_channels.back();
                m_pending_channels.pop_back();
            } else {
                ++i;
            }
        }
    }
    if (moved) {
        deliver();
        m_wake.notify(sc_core::SC_ZERO_TIME);
    }
}

void Hbm::advance_to(uint64_t cycle) {
    bool ticked = false;
    for (uint64_t next = m_core.next_event(); next <= cycle; next = m_core.next_event()) {
        m_core.tick(next, m_done);
        ticked = true;
    }
    // Accesses waiting for room enter once a tick made some (the run thread wakes at every tick).
    if (ticked && !m_pending_channels.empty()) accept_pending();
    deliver();
}

void Hbm::run() {
    for (;;) {
        advance_to(now_cycle());
        if (m_core.idle()) {
            wait(m_wake);
            continue;
        }
        const uint64_t next = m_core.next_event();
        const sc_core::sc_time at = time_of(next);
        if (at > sc_core::sc_time_stamp()) {
            wait(at - sc_core::sc_time_stamp(), m_wake);
        } else {
            wait(sc_core::SC_ZERO_TIME);
        }
    }
}

Picoseconds Hbm::serve(tlm::tlm_generic_payload& p, sc_core::sc_time& delay, int) {
    wait(delay);
    delay = sc_core::SC_ZERO_TIME;
    const sc_core::sc_time start = sc_core::sc_time_stamp();
    const bool is_write = p.is_write();
    const uint64_t access = m_core.access_bytes();
    const uint64_t first = p.get_address() / access * access;
    const uint64_t end = p.get_address() + p.get_data_length();
    const TransactionInfo* info = info_of(p);
    const bool prefetch = info && info->stream == StreamClass::kPrefetch;  // demand first
    Waiter w;
    w.outstanding = 1;  // a guard until every access has been handed over
    advance_to(now_cycle());
    for (uint64_t a = first; a < end; a += access) {
        ++w.outstanding;
        const uint32_t channel = m_core.channel_of(a);  // decoded once for can_accept and accept
        const uint32_t line = line_of(channel, is_write, prefetch);
        auto& q = m_pending[line];
        if (q.empty() && may_enter(line)) {
            accept(a, is_write, &w);
        } else {
            // The channel is full: this access waits in its channel's line (the back-pressure),
            // the transaction's accesses to other channels go on.
            if (q.empty()) m_pending_channels.push_back(line);
            q.push_back({a, is_write, &w});
        }
    }
    deliver();
    m_wake.notify(sc_core::SC_ZERO_TIME);
    if (--w.outstanding != 0) {
        wait(w.done);
    } else if (time_of(w.last) > sc_core::sc_time_stamp()) {
        wait(time_of(w.last) - sc_core::sc_time_stamp());
    }
    // Reads come back over the die-side path (network_latency) after the data left the device.
    Picoseconds done = ClockDomain::to_ps(sc_core::sc_time_stamp());
    if (is_write) {
        ++m_writes;
        m_write_bytes += p.get_data_length();
    } else {
        ++m_reads;
        m_read_bytes += p.get_data_length();
        done += static_cast<Picoseconds>(m_params.network_latency_ps);
        m_read_latency_ns.sample((done - ClockDomain::to_ps(start)) / 1000);
    }
    if (info && info->ledger) {
        info->ledger->hbm(*info, p.get_data_length(), is_write);  // per-op bytes (op_ledger.h)
    }
    delivered(done, p.get_data_length());
    return done;
}

void Hbm::finalize_stats() {
    const HbmChannelStats s = m_core.totals();
    m_activates.set(s.activates);
    m_precharges.set(s.precharges);
    m_refreshes.set(s.refreshes);
    m_row_hits.set(s.read_row_hits + s.write_row_hits);
}

}  // namespace asim
