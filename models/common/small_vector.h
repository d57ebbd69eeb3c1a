// SmallVector<T, N>: a vector whose first N elements live inside the object, so a container that
// usually holds a handful of elements (a collective step's receives and sends, a rank's peers)
// costs no allocation and sits in the same cache lines as its owner. Past N it moves its
// elements to the heap and grows like std::vector. Elements keep their order; erase() shifts
// the ones after it down. Iterators are pointers and, as with std::vector, any insertion may
// invalidate them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace asim {

template <typename T, std::size_t N>
class SmallVector {
    static_assert(N > 0 && N < (1u << 31), "SmallVector needs room for 1..2^31 elements inline");

public:
    using value_type = T;
    using size_type = std::size_t;
    using iterator = T*;
    using const_iterator = const T*;

    SmallVector() = default;
    SmallVector(std::initializer_list<T> init) {
        reserve(init.size());
        for (const T& v : init) push_back(v);
    }
    SmallVector(const SmallVector& o) {
        reserve(o.m_size);
        for (const T& v : o) push_back(v);
    }
    SmallVector(SmallVector&& o) noexcept(std::is_nothrow_move_constructible_v<T>) {
        take(std::move(o));
    }
    SmallVector& operator=(const SmallVector& o) {
        if (this != &o) {
            clear();
            reserve(o.m_size);
            for (const T& v : o) push_back(v);
        }
        return *this;
    }
    SmallVector& operator=(SmallVector&& o) noexcept(std::is_nothrow_move_constructible_v<T>) {
        if (this != &o) {
            release();
            take(std::move(o));
        }
        return *this;
    }
    ~SmallVector() { release(); }

    size_type size() const { return m_size; }
    size_type capacity() const { return m_capacity; }
    bool empty() const { return m_size == 0; }
    bool is_inline() const { return m_data == inline_data(); }

    T* data() { return m_data; }
    const T* data() const { return m_data; }
    iterator begin() { return m_data; }
    iterator end() { return m_data + m_size; }
    const_iterator begin() const { return m_data; }
    const_iterator end() const { return m_data + m_size; }
    T& operator[](size_type i) { return m_data[i]; }
    const T& operator[](size_type i) const { return m_data[i]; }
    T& front() { return m_data[0]; }
    const T& front() const { return m_data[0]; }
    T& back() { return m_data[m_size - 1]; }
    const T& back() const { return m_data[m_size - 1]; }

    void reserve(size_type n) {
        if (n > m_capacity) grow(n);
    }
    void push_back(const T& v) { emplace_back(v); }
    void push_back(T&& v) { emplace_back(std::move(v)); }
    template <typename... Args>
    T& emplace_back(Args&&... args) {
        if (m_size == m_capacity) {
            // `args` may refer to an element of this vector: build the new one first.
            T v(std::forward<Args>(args)...);
            grow(size_type{m_capacity} * 2);
            return *::new (static_cast<void*>(m_data + m_size++)) T(std::move(v));
        }
        return *::new (static_cast<void*>(m_data + m_size++)) T(std::forward<Args>(args)...);
    }
    void pop_back() { m_data[--m_size].~T(); }
    // Removes the element at `pos`, keeping the order of the others; returns the position of
    // the element that followed it.
    iterator erase(const_iterator pos) {
        T* p = m_data + (pos - m_data);
        for (T* q = p; q + 1 < end(); ++q) *q = std::move(q[1]);
        pop_back();
        return p;
    }
    void clear() {
        for (uint32_t i = 0; i < m_size; ++i) m_data[i].~T();
        m_size = 0;
    }

private:
    T* inline_data() { return std::launder(reinterpret_cast<T*>(m_inline)); }
    const T* inline_data() const { return std::launder(reinterpret_cast<const T*>(m_inline)); }

    void grow(size_type n) {
        T* fresh = std::allocator<T>().allocate(n);
        for (uint32_t i = 0; i < m_size; ++i) {
            ::new (static_cast<void*>(fresh + i)) T(std::move(m_data[i]));
            m_data[i].~T();
        }
        if (!is_inline()) std::allocator<T>().deallocate(m_data, m_capacity);
        m_data = fresh;
        m_capacity = static_cast<uint32_t>(n);
    }
    // Destroys the elements and frees the heap block; leaves the vector empty and inline.
    void release() {
        clear();
        if (!is_inline()) std::allocator<T>().deallocate(m_data, m_capacity);
        m_data = inline_data();
        m_capacity = N;
    }
    // Takes `o`'s elements (its heap block when it has one); `this` is empty and inline.
    void take(SmallVector&& o) {
        if (o.is_inline()) {
            for (uint32_t i = 0; i < o.m_size; ++i)
                ::new (static_cast<void*>(m_data + i)) T(std::move(o.m_data[i]));
            m_size = o.m_size;
            o.clear();
            return;
        }
        m_data = o.m_data;
        m_size = o.m_size;
        m_capacity = o.m_capacity;
        o.m_data = o.inline_data();
        o.m_size = 0;
        o.m_capacity = N;
    }

    T* m_data = inline_data();
    uint32_t m_size = 0;  // 32 bits: the header is 16 bytes
    uint32_t m_capacity = N;
    alignas(T) unsigned char m_inline[sizeof(T) * N];
};

}  // namespace asim
