// A fixed-size array for the L2's per-line and per-set state, laid out for the host CPU: aligned
// to its 64 B cache lines and, when it is large, to 2 MiB with Linux asked to back it with huge
// pages (madvise; a hint, ignored where transparent huge pages are off). The L2 reads these
// arrays at hashed indices, one set per line of a request, so with 4 KiB pages nearly every
// access also missed the host's TLB (eight dies' L2 state is tens of megabytes). Simulator
// speed only.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace asim {

template <class T>
class HostArray {
    static_assert(std::is_trivially_copyable<T>::value && std::is_trivially_destructible<T>::value,
                  "HostArray holds plain state");

public:
    HostArray() = default;
    HostArray(std::size_t n, const T& value) : m_size(n) {
        const std::size_t bytes = n == 0 ? 1 : n * sizeof(T);
        const std::size_t align = bytes >= kHugeFrom ? kHugePage : kHostLine;
        const std::size_t rounded = (bytes + align - 1) / align * align;
        void* p = std::aligned_alloc(align, rounded);
        if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (align == kHugePage) madvise(p, rounded, MADV_HUGEPAGE);
#endif
        m_data = static_cast<T*>(p);
        std::uninitialized_fill_n(m_data, n, value);
    }
    ~HostArray() { std::free(m_data); }
    HostArray(const HostArray&) = delete;
    HostArray& operator=(const HostArray&) = delete;
    HostArray(HostArray&& o) noexcept : m_data(o.m_data), m_size(o.m_size) {
        o.m_data = nullptr;
        o.m_size = 0;
    }
    HostArray& operator=(HostArray&& o) noexcept {
        std::swap(m_data, o.m_data);
        std::swap(m_size, o.m_size);
        return *this;
    }

    T& operator[](std::size_t i) { return m_data[i]; }
    const T& operator[](std::size_t i) const { return m_data[i]; }
    T* data() { return m_data; }
    const T* data() const { return m_data; }
    std::size_t size() const { return m_size; }
    T* begin() { return m_data; }
    T* end() { return m_data + m_size; }
    const T* begin() const { return m_data; }
    const T* end() const { return m_data + m_size; }

private:
    static constexpr std::size_t kHostLine = 64;
    static constexpr std::size_t kHugePage = std::size_t{2} << 20;
    // Smaller arrays are not rounded up to a whole huge page (it would be mostly empty).
    static constexpr std::size_t kHugeFrom = std::size_t{2} << 20;

    T* m_data = nullptr;
    std::size_t m_size = 0;
};

}  // namespace asim
