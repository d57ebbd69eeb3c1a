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
    m_channels[d.channel].accept(t, done);
}

void HbmController::tick(uint64_t now, std::vector<HbmCompletion>& done) {
    for (auto& c : m_channels) {
        if (c.next_active() <= now) c.tick(now, done);
    }
}

uint64_t HbmController::next_event() const {
    uint64_t n = kHbmNever;
    for (const auto& c : m_channels) n = std::min(n, c.next_active());
    return n;
}

bool HbmController::idle() const {
    return std::all_of(m_channels.begin(), m_channels.end(), [](const HbmChannel& c) { return c.idle(); });
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
