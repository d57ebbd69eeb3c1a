#include "models/memory/hbm/hbm_controller.h"

#include <algorithm>
#include <functional>

namespace asim {

HbmController::HbmController(const HbmDeviceParams& params)
    : m_p(params),
      m_lines(params.transaction_size() > params.org.access_bytes()),
      m_shape(m_lines ? line_shape(params) : HbmLineShape{}),
      m_channel_p(m_lines ? line_transaction_device(params) : params),
      m_map(params.ctrl.mapping, params.org),
      m_sched(hbm_scheduler_registry().make(m_channel_p.ctrl.scheduler,
                                            m_channel_p.ctrl.scheduler_params)),
      m_policy(hbm_page_policy_registry().make(params.ctrl.page_policy, {})),
      m_access(params.transaction_size()),
      m_access_shift(0) {
    while ((uint64_t{1} << m_access_shift) < m_access) ++m_access_shift;
    m_channels.reserve(params.org.channels());
    for (uint32_t c = 0; c < params.org.channels(); ++c)
        m_channels.emplace_back(m_channel_p, *m_sched, *m_policy);
    const uint32_t n = static_cast<uint32_t>(m_channels.size());
    m_words = (n + 63) / 64;
    m_slots.assign(uint64_t{kWheel} * m_words, 0);
    m_scratch.resize(m_words);
    m_key.assign(n, kHbmNever);
    m_where.assign(n, Where::kNone);
    for (uint32_t c = 0; c < n; ++c) file(c, m_channels[c].next_active());
    m_next = find_next();
}

void HbmController::file(uint32_t c, uint64_t key) {
    m_key[c] = key;
    if (key == kHbmNever) {
        m_where[c] = Where::kNone;
    } else if (key >= m_base && key - m_base < kWheel) {
        const uint32_t slot = static_cast<uint32_t>(key & (kWheel - 1));
        m_slots[uint64_t{slot} * m_words + c / 64] |= uint64_t{1} << (c % 64);
        m_summary[slot / 64] |= uint64_t{1} << (slot % 64);
        m_where[c] = Where::kWheel;
    } else {  // beyond the wheel (or, for a caller out of order, before it: tick_late sorts it out)
        m_far.emplace_back(key, c);
        std::push_heap(m_far.begin(), m_far.end(), std::greater<>());
        m_where[c] = Where::kFar;
    }
}

void HbmController::unfile(uint32_t c) {
    if (m_where[c] == Where::kWheel) {
        const uint32_t slot = static_cast<uint32_t>(m_key[c] & (kWheel - 1));
        uint64_t* bits = &m_slots[uint64_t{slot} * m_words];
        bits[c / 64] &= ~(uint64_t{1} << (c % 64));
        bool empty = true;
        for (uint32_t w = 0; w < m_words; ++w) empty &= bits[w] == 0;
        if (empty) m_summary[slot / 64] &= ~(uint64_t{1} << (slot % 64));
    }
    m_where[c] = Where::kNone;  // a far entry goes stale: skipped when it surfaces
}

uint64_t HbmController::find_next() {
    while (!m_far.empty()) {  // drop stale far entries from the top
        const auto [key, c] = m_far.front();
        if (m_where[c] == Where::kFar && m_key[c] == key) break;
        std::pop_heap(m_far.begin(), m_far.end(), std::greater<>());
        m_far.pop_back();
    }
    uint64_t next = m_far.empty() ? kHbmNever : m_far.front().first;
    constexpr uint32_t kSummary = kWheel / 64;
    const uint32_t start = static_cast<uint32_t>(m_base & (kWheel - 1));
    const uint32_t w0 = start / 64;
    uint64_t bits = m_summary[w0] & (~uint64_t{0} << (start % 64));
    for (uint32_t k = 0, w = w0;;) {
        if (bits != 0) {
            const uint32_t slot = w * 64 + static_cast<uint32_t>(__builtin_ctzll(bits));
            return std::min(next, m_base + ((slot - start) & (kWheel - 1)));
        }
        if (++k > kSummary) break;
        w = (w + 1) % kSummary;
        bits = m_summary[w];
        if (w == w0)
            bits &= ~(~uint64_t{0} << (start % 64));  // round again: the slots before start
    }
    return next;
}

void HbmController::turn_to(uint64_t now) {
    m_base = now;
    while (!m_far.empty() && m_far.front().first - m_base < kWheel) {
        const auto [key, c] = m_far.front();
        std::pop_heap(m_far.begin(), m_far.end(), std::greater<>());
        m_far.pop_back();
        if (m_where[c] == Where::kFar && m_key[c] == key) file(c, key);
    }
}

void HbmController::accept(uint64_t now, uint64_t addr, bool is_write, uint64_t tag,
                           std::vector<HbmCompletion>& done) {
    const DecodedAddress d = decoded(addr);
    HbmTxn t;
    t.tag = tag;
    t.addr = addr >> m_access_shift << m_access_shift;
    t.accept = now;
    t.row = d.row;
    t.rank = static_cast<uint8_t>(d.rank);
    if (m_lines) {  // the bank set: the rank's bank d.bank in every bank group
        t.column = d.column / m_shape.columns;
        t.bank_group = 0;
        t.bank = static_cast<uint16_t>(d.rank * m_p.org.banks_per_group + d.bank);
    } else {
        t.column = d.column;
        t.bank_group = static_cast<uint8_t>(d.bank_group);
        t.bank = static_cast<uint16_t>(
            (d.rank * m_p.org.bank_groups + d.bank_group) * m_p.org.banks_per_group + d.bank);
    }
    t.is_write = is_write;
    HbmChannel& ch = m_channels[d.channel];
    const bool was_idle = ch.idle();
    ch.accept(t, done);
    m_busy += was_idle && !ch.idle();
    const uint32_t c = d.channel;
    if (ch.next_active() < m_key[c]) {  // accepting only ever brings a channel forward
        unfile(c);
        file(c, ch.next_active());
        m_next = std::min(m_next, ch.next_active());
    }
}

void HbmController::tick(uint64_t now, std::vector<HbmCompletion>& done) {
    if (m_next > now) return;
    if (m_next < now) {
        tick_late(now, done);
        return;
    }
    // Every due channel is due at `now` and filed in its slot: run them in index order. Each is
    // next active after `now`, so it is filed elsewhere while the slot is being read.
    turn_to(now);
    const uint32_t slot = static_cast<uint32_t>(now & (kWheel - 1));
    uint64_t* bits = &m_slots[uint64_t{slot} * m_words];
    std::copy(bits, bits + m_words, m_scratch.begin());
    std::fill(bits, bits + m_words, 0);
    m_summary[slot / 64] &= ~(uint64_t{1} << (slot % 64));
    for (uint32_t w = 0; w < m_words; ++w) {
        for (uint64_t b = m_scratch[w]; b != 0; b &= b - 1) {
            const uint32_t c = w * 64 + static_cast<uint32_t>(__builtin_ctzll(b));
            HbmChannel& ch = m_channels[c];
            const bool was_idle = ch.idle();
            file(c, ch.tick(now, done));
            m_busy = m_busy - !was_idle + !ch.idle();
        }
    }
    m_next = find_next();
}

void HbmController::tick_late(uint64_t now, std::vector<HbmCompletion>& done) {
    // Some channel was due before `now` (the caller skipped its cycle): run every due channel in
    // index order, as a scan over all channels would, and file everything afresh.
    const uint32_t n = static_cast<uint32_t>(m_channels.size());
    std::fill(m_slots.begin(), m_slots.end(), 0);
    std::fill(std::begin(m_summary), std::end(m_summary), 0);
    m_far.clear();
    m_base = now;
    for (uint32_t c = 0; c < n; ++c) {
        HbmChannel& ch = m_channels[c];
        if (ch.next_active() <= now) {
            const bool was_idle = ch.idle();
            ch.tick(now, done);
            m_busy = m_busy - !was_idle + !ch.idle();
        }
        file(c, ch.next_active());
    }
    m_next = find_next();
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
    return m_lines ? burst_equivalent(s, m_shape, m_p.ctrl.refresh) : s;
}

}  // namespace asim
