#include "models/memory/tiers/network_fabric.h"

#include <systemc>

#include "models/common/clock_domain.h"

namespace asim {

Picoseconds NetworkFabric::carry(uint32_t src, uint32_t dst, uint64_t bytes, bool write,
                                 bool background) {
    // The network's state at the kernel's time (its own driver may not have run at this instant).
    m_network.advance_to(static_cast<int64_t>(ClockDomain::to_ps(sc_core::sc_time_stamp())));
    const uint64_t key = (static_cast<uint64_t>(src) << 34) | (static_cast<uint64_t>(dst) << 2) |
                         (write ? 2u : 0u) | (background ? 1u : 0u);
    auto [it, fresh] = m_streams.try_emplace(key, 0);
    if (fresh) {
        it->second = m_network.open_stream(src, dst, write ? LinkOp::write : LinkOp::read,
                                           background ? kBackgroundWeight : 1.0);
    }
    return static_cast<Picoseconds>(m_network.stream_push(it->second, bytes));
}

}  // namespace asim
