// Blocks of the pool held in a region of local HBM: the H-JSD's staging region (filled by
// prefetch, FIFO) and the hardware tiering's promoted blocks (filled by migration, LRU). A block
// is a power-of-two aligned range of pool addresses; its copy lives in one slot of the region.
#pragma once

#include <cstdint>
#include <list>
#include <optional>
#include <unordered_map>
#include <vector>

#include "models/common/clock_domain.h"

namespace asim {

class LocalCopies {
public:
    struct Copy {
        uint64_t block = 0;      // pool address / block bytes
        uint64_t slot_addr = 0;  // where the copy lives in local HBM
        Picoseconds ready = 0;   // when the copy is complete
        bool used = false;       // a demand read touched it
        bool dirty = false;      // written since it arrived (written back when it leaves)
        uint64_t credit = 0;     // staging credit the H-JSD holds for it
    };

    // `lru`: a touch moves a copy to the back of the eviction order (else first in, first out).
    LocalCopies(uint64_t region_base, uint64_t capacity, uint64_t block_bytes, bool lru)
        : m_block(block_bytes), m_lru(lru) {
        const uint64_t slots = block_bytes ? capacity / block_bytes : 0;
        for (uint64_t s = slots; s-- > 0;) m_free_slots.push_back(region_base + s * block_bytes);
    }

    bool enabled() const { return !m_free_slots.empty() || !m_order.empty(); }
    uint64_t block_bytes() const { return m_block; }
    uint64_t block_of(uint64_t addr) const { return addr / m_block; }

    // The copy of `block`, or null. A touch refreshes its place in an LRU order.
    Copy* find(uint64_t block, bool touch) {
        auto it = m_index.find(block);
        if (it == m_index.end()) return nullptr;
        if (touch && m_lru) m_order.splice(m_order.end(), m_order, it->second);
        return &*it->second;
    }

    // Makes room for one more copy: returns the evicted one when the region is full.
    std::optional<Copy> make_room() {
        if (!m_free_slots.empty() || m_order.empty()) return std::nullopt;
        Copy victim = m_order.front();
        m_index.erase(victim.block);
        m_order.pop_front();
        m_free_slots.push_back(victim.slot_addr);
        return victim;
    }

    // Inserts a copy of `block` (after make_room()); returns it.
    Copy& insert(uint64_t block, Picoseconds ready) {
        const uint64_t slot = m_free_slots.back();
        m_free_slots.pop_back();
        m_order.push_back(Copy{block, slot, ready, false, false, 0});
        auto it = std::prev(m_order.end());
        m_index.emplace(block, it);
        return *it;
    }

    std::size_t size() const { return m_order.size(); }

private:
    uint64_t m_block;
    bool m_lru;
    std::vector<uint64_t> m_free_slots;
    std::list<Copy> m_order;  // eviction order, oldest first
    std::unordered_map<uint64_t, std::list<Copy>::iterator> m_index;
};

}  // namespace asim
