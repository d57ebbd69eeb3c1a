// The L2's MSHRs held by fetches until their fills complete: a multiset of (until, count) from
// which the model takes the earliest. Only the times matter (two holds ending at the same time
// are interchangeable), so any exact min-queue gives the same results.
//
// Holds pushed in time order (no earlier than the last one queued so) go to a FIFO: behind a
// memory that serialises fetches (a pool port, MSHRs all taken) every line is its own fetch and
// its own hold, each later than the one before, and a FIFO takes them in and out in constant
// time. The others go to a radix heap: holds live in buckets by the highest bit in which their
// time differs from `last`, the earliest time taken so far (bucket 0: equal to it); the earliest
// hold is found by scanning only the lowest non-empty bucket and spreading it over the buckets
// below. That needs every time pushed to be >= `last`; the few that complete earlier (requests
// are served in call order, not time order) go to a small binary heap beside it. Simulator speed
// only: the binary heap of std::push_heap/pop_heap, up to 4,096 holds and one per stalled line,
// was 7 % of the 8-die TP8 layer's profile, most of it host cache misses; the radix heap's
// spreading alone was 9 % of a run with the weights in the pool (one hold per line).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/common/clock_domain.h"
#include "models/common/sliding_vector.h"

namespace asim {

struct MshrHold {
    Picoseconds until;
    uint32_t count;
};

// The radix heap (with its binary heap of early holds) described above.
class MshrRadixHeap {
public:
    using Hold = MshrHold;

    bool empty() const { return m_buckets_used == 0 && m_early.empty(); }
    // The earliest hold (not empty()); its count may be changed in place.
    Hold& front() {
        if (m_buckets_used != 0) {
            if (m_buckets[0].empty()) spread_lowest();
            if (m_early.empty() || m_early.front().until >= m_last) return m_buckets[0].back();
        }
        return m_early.front();
    }
    // Removes the hold front() returns.
    void pop() {
        if (m_buckets_used != 0) {
            if (m_buckets[0].empty()) spread_lowest();
            if (m_early.empty() || m_early.front().until >= m_last) {
                m_buckets[0].pop_back();
                if (m_buckets[0].empty()) m_buckets_used &= ~uint64_t{1};
                return;
            }
        }
        std::pop_heap(m_early.begin(), m_early.end(), later);
        m_early.pop_back();
    }
    void push(Hold h) {
        if (h.until < m_last) {
            m_early.push_back(h);
            std::push_heap(m_early.begin(), m_early.end(), later);
            return;
        }
        put(h);
    }

private:
    static bool later(const Hold& a, const Hold& b) { return a.until > b.until; }
    // Bucket 63 also takes the times that differ from `last` in bit 63: every time in a bucket
    // is still later than every time in the buckets below.
    static std::size_t bucket_of(Picoseconds until, Picoseconds last) {
        if (until == last) return 0;
        return std::min<std::size_t>(static_cast<std::size_t>(64 - __builtin_clzll(until ^ last)),
                                     kBuckets - 1);
    }
    void put(const Hold& h) {
        const std::size_t b = bucket_of(h.until, m_last);
        m_buckets[b].push_back(h);
        m_buckets_used |= uint64_t{1} << b;
    }
    // Bucket 0 is empty and some other is not: `last` becomes the earliest time of the lowest
    // non-empty bucket, whose holds all move to lower buckets (at least one to bucket 0).
    void spread_lowest() {
        const auto b = static_cast<std::size_t>(__builtin_ctzll(m_buckets_used));
        std::vector<Hold>& from = m_buckets[b];
        Picoseconds least = from.front().until;
        for (const Hold& h : from) least = std::min(least, h.until);
        m_last = least;
        m_spread.swap(from);
        m_buckets_used &= ~(uint64_t{1} << b);
        for (const Hold& h : m_spread) put(h);
        m_spread.clear();
    }

    static constexpr std::size_t kBuckets = 64;
    // Bucket b > 0: holds whose time's highest bit differing from m_last is bit b - 1 (see
    // bucket_of). Bit b of m_buckets_used: bucket b is not empty.
    std::array<std::vector<Hold>, kBuckets> m_buckets;
    uint64_t m_buckets_used = 0;
    Picoseconds m_last = 0;
    std::vector<Hold> m_early;   // holds earlier than m_last: a binary min-heap
    std::vector<Hold> m_spread;  // scratch for spread_lowest
};

class MshrHolds {
public:
    using Hold = MshrHold;

    bool empty() const { return m_in_order.empty() && m_heap.empty(); }
    // The earliest hold (not empty()); its count may be changed in place.
    Hold& front() { return from_in_order() ? m_in_order.front() : m_heap.front(); }
    // Removes the hold front() returns.
    void pop() {
        if (!from_in_order()) return m_heap.pop();
        m_in_order.pop_front();
    }
    void push(Hold h) {
        if (m_in_order.empty() || h.until >= m_in_order.back().until)
            m_in_order.push_back(h);
        else
            m_heap.push(h);
    }

private:
    // Whether the earliest hold is the FIFO's first (on a tie either is the earliest).
    bool from_in_order() {
        if (m_in_order.empty()) return false;
        return m_heap.empty() || m_in_order.front().until <= m_heap.front().until;
    }

    SlidingVector<Hold> m_in_order{256};  // holds in time order
    MshrRadixHeap m_heap;                 // holds pushed out of order
};

}  // namespace asim
