#include "models/common/functional_memory.h"

#include <algorithm>
#include <cstring>

namespace asim {

void FunctionalMemory::write(uint64_t addr, const uint8_t* data, uint64_t bytes) {
    while (bytes > 0) {
        const uint64_t page = addr / kPage, offset = addr % kPage;
        const uint64_t n = std::min(bytes, kPage - offset);
        auto& p = m_pages[page];
        if (!p) p = std::make_unique<Page>(Page{});
        std::memcpy(p->data() + offset, data, n);
        addr += n;
        data += n;
        bytes -= n;
    }
}

void FunctionalMemory::read(uint64_t addr, uint8_t* out, uint64_t bytes) const {
    while (bytes > 0) {
        const uint64_t page = addr / kPage, offset = addr % kPage;
        const uint64_t n = std::min(bytes, kPage - offset);
        const auto it = m_pages.find(page);
        if (it == m_pages.end()) {
            std::memset(out, 0, n);
        } else {
            std::memcpy(out, it->second->data() + offset, n);
        }
        addr += n;
        out += n;
        bytes -= n;
    }
}

bool FunctionalMemory::touched(uint64_t addr, uint64_t bytes) const {
    if (bytes == 0) return false;
    for (uint64_t page = addr / kPage; page <= (addr + bytes - 1) / kPage; ++page) {
        if (m_pages.count(page)) return true;
    }
    return false;
}

}  // namespace asim
