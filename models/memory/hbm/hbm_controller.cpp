#include "models/memory/hbm/hbm_controller.h"

#include <algorithm>

namespace asim {

HbmController::HbmController(const HbmDeviceParams& params)
    : m_p(params),
      m_map(params.ctrl.mapping, params.org),
      m_sched(make_hbm_scheduler(params.ctrl.scheduler, params.ctrl.row_hit_cap)),
      m_policy(make_hbm_page_policy(params.ctrl.page_policy)),
      m_access(params.org.access_bytes()),
      m_access_shift(0) {
    while ((uint64_t{1} << m_access_shift) < m_access) ++m_access_shift;
    m_channels.reserve(params.org.channels());
    for (uint32_t c = 0; c < params.org.channels(); ++c) m_channels.emplace_back(m_p, *m_sched, *m_policy);
    const uint32_t n = static_cast<uint32_t>(m_channels.size());
    m_key.resize(n);
    m_heap.resize(n);
    m_pos.resize(n);
    for (uint32_t c = 0; c < n; ++c) {
        m_key[c] = m_channels[c].next_active();
        m_heap[c] = c;
        m_pos[c] = c;
    }
    for (uint32_t i = n / 2; i-- > 0;) sift_down(i);
    m_due.reserve(n);
}

void HbmController::sift_up(uint32_t i) {
    const uint32_t c = m_heap[i];
    while (i > 0) {
        const uint32_t parent = (i - 1) / 2;
        if (!before(c, m_heap[parent])) break;
        m_heap[i] = m_heap[parent];
        m_pos[m_heap[i]] = i;
        i = parent;
    }
    m_heap[i] = c;
    m_pos[c] = i;
}

void HbmController::sift_down(uint32_t i) {
    const uint32_t n = static_cast<uint32_t>(m_heap.size());
    const uint32_t c = m_heap[i];
    for (;;) {
        uint32_t child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && before(m_heap[child + 1], m_heap[child])) ++child;
        if (!before(m_heap[child], c)) break;
        m_heap[i] = m_heap[child];
        m_pos[m_heap[i]] = i;
        i = child;
    }
    m_heap[i] = c;
    m_pos[c] = i;
}

void HbmController::accept(uint64_t now, uint64_t addr, bool is_write, uint64_t tag,
                           std::vector<HbmCompletion>& done) {
    const DecodedAddress d = m_map.decode(addr);
    HbmTxn t;
    t.tag = tag;
    t.addr = addr >> m_access_shift << m_access_shift;
    t.accept = now;
    t.row = d.row;
    t.column = d.column;
    t.bank_group = static_cast<uint8_t>(d.bank_group);
    t.rank = static_cast<uint8_t>(d.rank);
    t.bank = static_cast<uint16_t>((d.rank * m_p.org.bank_groups + d.bank_group) * m_p.org.banks_per_group + d.bank);
    t.is_write = is_write;
    HbmChannel& ch = m_channels[d.channel];
    const bool was_idle = ch.idle();
    ch.accept(t, done);
    m_busy += was_idle && !ch.idle();
    if (ch.next_active() < m_key[d.channel]) {  // accepting only ever brings a channel forward
        m_key[d.channel] = ch.next_active();
        sift_up(m_pos[d.channel]);
    }
}

void HbmController::tick(uint64_t now, std::vector<HbmCompletion>& done) {
    if (m_key[m_heap[0]] < now) {
        tick_late(now, done);
        return;
    }
    // Every due channel is due at `now`: the heap yields them in index order. A ticked channel
    // is next active after `now`, so it sinks below the others once (one sift per tick).
    while (m_key[m_heap[0]] == now) {
        const uint32_t c = m_heap[0];
        HbmChannel& ch = m_channels[c];
        const bool was_idle = ch.idle();
        m_key[c] = ch.tick(now, done);
        m_busy = m_busy - !was_idle + !ch.idle();
        sift_down(0);
    }
}

void HbmController::tick_late(uint64_t now, std::vector<HbmCompletion>& done) {
    // Some channel was due before `now` (the caller skipped its cycle): take every due channel
    // off the heap and run them in index order, as a scan over all channels would.
    m_due.clear();
    while (m_key[m_heap[0]] <= now) {
        const uint32_t c = m_heap[0];
        m_due.push_back(c);
        m_key[c] = kHbmNever;  // parked at the bottom until ticked
        sift_down(0);
    }
    std::sort(m_due.begin(), m_due.end());
    for (const uint32_t c : m_due) {
        HbmChannel& ch = m_channels[c];
        const bool was_idle = ch.idle();
        m_key[c] = ch.tick(now, done);
        m_busy = m_busy - !was_idle + !ch.idle();
        sift_up(m_pos[c]);
    }
}

HbmChannelStats HbmController::totals() const {
    HbmChannelStats s;
    for (const auto& c : m_channels) {
        const auto& x = c.stats();
        s.activates += x.activates;
        s.precharges += x.precharges;
        s.refreshes += x.refreshes;
        s.reads += x.reads;
        s.writes += x.writes;
        s.read_row_hits += x.read_row_hits;
        s.write_row_hits += x.write_row_hits;
        s.write_buffer_read_hits += x.write_buffer_read_hits;
    }
    return s;
}

}  // namespace asim
