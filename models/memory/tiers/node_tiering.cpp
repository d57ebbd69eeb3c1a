#include "models/memory/tiers/node_tiering.h"

#include <algorithm>

namespace asim {

namespace {
// The copies are booked in turn with the dies' demand at the devices (a share of their time, the
// budget), not as background: a calendar device does not push back a transfer it has granted, so
// a background copy booked ahead would overlap the demand booked after it and the device would
// deliver more than its bandwidth (calendar_server.h).
constexpr bool kInTurn = false;  // CalendarServer::reserve's `background`
}  // namespace

NodeTiering::NodeTiering(const DsmWarmParams& params, PoolDevice& from, PoolDevice& into,
                         const ClockDomain* clock)
    : m_params(params),
      m_from(from),
      m_into(into),
      m_budget(clock, params.migration_bytes_per_s / kPoolClockHz),
      // The region's slots are offsets in `into`'s device: only its bandwidth is modelled, so
      // where the region lies does not matter.
      m_copies(0, params.capacity, params.block, true) {}

bool NodeTiering::serves(uint64_t offset, Picoseconds arrival, bool write, bool demand) {
    LocalCopies::Copy* c = m_copies.find(m_copies.block_of(offset), demand);
    if (!c || c->ready > arrival) return false;
    if (write) c->dirty = true;
    ++m_counters.hits;
    return true;
}

void NodeTiering::count_read(uint64_t offset, Picoseconds when, Picoseconds now) {
    const uint64_t block = m_copies.block_of(offset);
    // A block being copied is read where it is meanwhile; those reads are not counted again.
    if (m_copies.find(block, false)) return;
    if (++m_reads[block] < m_params.warm_after) return;
    if (m_budget.free_at() > when + kMigrationHorizonPs) {
        ++m_counters.skipped;
        return;
    }
    m_reads.erase(block);
    const uint64_t bytes = m_params.block;
    if (auto victim = m_copies.make_room()) {
        ++m_counters.cooled;
        if (victim->dirty) {
            // The copy read from `into`, written back to `from` (in turn, as the copies).
            m_into.read.forget_before(now);
            m_from.write.forget_before(now);
            for (uint64_t off = 0; off < bytes; off += kPoolPieceBytes) {
                const uint64_t piece = std::min(kPoolPieceBytes, bytes - off);
                const Picoseconds read = m_into.read.reserve(when, piece, kInTurn).end;
                m_from.write.reserve(read, piece, kInTurn);
            }
            m_counters.written_back_bytes += bytes;
        }
    }
    Picoseconds ready = when;
    m_from.read.forget_before(now);
    m_into.write.forget_before(now);
    for (uint64_t off = 0; off < bytes; off += kPoolPieceBytes) {
        const uint64_t piece = std::min(kPoolPieceBytes, bytes - off);
        const Picoseconds start = m_budget.reserve(when, piece).start;
        const Picoseconds read = m_from.read.reserve(start, piece, kInTurn).end;
        ready = std::max(ready, m_into.write.reserve(read, piece, kInTurn).end);
    }
    m_copies.insert(block, ready);
    ++m_counters.warmed;
}

}  // namespace asim
