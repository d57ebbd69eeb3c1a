// Bytes behind the timing model, for functional runs: a sparse store of 4 KiB pages over the
// 64-bit address space. Bytes never written read as zero. The timing model's TLM payloads carry
// no data; in a functional run the engines' DMA (TilePipeline) reads and writes here at the
// simulated time of each transfer.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>

namespace asim {

class FunctionalMemory {
public:
    void write(uint64_t addr, const uint8_t* data, uint64_t bytes);
    void read(uint64_t addr, uint8_t* out, uint64_t bytes) const;
    // Whether any byte of [addr, addr + bytes) lies in a page that was written.
    bool touched(uint64_t addr, uint64_t bytes) const;
    uint64_t pages() const { return m_pages.size(); }

private:
    static constexpr uint64_t kPage = 4096;
    using Page = std::array<uint8_t, kPage>;
    std::unordered_map<uint64_t, std::unique_ptr<Page>> m_pages;
};

}  // namespace asim
