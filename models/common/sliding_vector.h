// A vector that also drops elements from its front: a queue or a sorted window of times where
// elements arrive at the back and leave from the front, kept in one flat array. Dropping moves
// a head index; the dropped entries are erased in one move once they are at least `compact_from`
// and half of the array (amortised O(1) per element), and the array is emptied when nothing is
// left. The live elements are [begin(), end()), indexed from 0 at the head. Simulator speed
// only: the pool's calendars were a std::map before (a node allocation per interval), the L2's
// in-order MSHR holds a heap (models/memory/l2/mshr_holds.h).
#pragma once

#include <cstddef>
#include <vector>

namespace asim {

template <class T>
class SlidingVector {
public:
    explicit SlidingVector(std::size_t compact_from) : m_compact_from(compact_from) {}

    std::size_t size() const { return m_items.size() - m_head; }
    bool empty() const { return m_head == m_items.size(); }
    T* begin() { return m_items.data() + m_head; }
    T* end() { return m_items.data() + m_items.size(); }
    const T* begin() const { return m_items.data() + m_head; }
    const T* end() const { return m_items.data() + m_items.size(); }
    T& operator[](std::size_t i) { return m_items[m_head + i]; }
    const T& operator[](std::size_t i) const { return m_items[m_head + i]; }
    T& front() { return m_items[m_head]; }
    const T& front() const { return m_items[m_head]; }
    T& back() { return m_items.back(); }
    const T& back() const { return m_items.back(); }

    // A value-initialised element at the back, for the caller to fill in field by field (GCC
    // built a small struct on the stack and copied it with one wide load: a store-forwarding
    // stall where profiles showed it).
    T& emplace_back() { return m_items.emplace_back(); }
    void push_back(const T& v) { m_items.push_back(v); }
    void insert(std::size_t i, const T& v) {
        m_items.insert(m_items.begin() + static_cast<std::ptrdiff_t>(m_head + i), v);
    }
    void erase(std::size_t i) {
        m_items.erase(m_items.begin() + static_cast<std::ptrdiff_t>(m_head + i));
    }
    // Drops the front element (not empty()).
    void pop_front() {
        if (++m_head == m_items.size()) {
            m_items.clear();
            m_head = 0;
        } else if (m_head >= m_compact_from && 2 * m_head >= m_items.size()) {
            m_items.erase(m_items.begin(), m_items.begin() + static_cast<std::ptrdiff_t>(m_head));
            m_head = 0;
        }
    }

private:
    std::vector<T> m_items;  // from m_head on: the live elements
    std::size_t m_head = 0;
    std::size_t m_compact_from;
};

}  // namespace asim
