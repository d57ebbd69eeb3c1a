#include "models/memory/tiers/dsm_pool.h"

namespace asim {

namespace {
constexpr uint64_t kPicosecondClock = 1'000'000'000'000ULL;  // servers count in ps
}

DsmPool::DsmPool(const DsmParams& params, StatsRegistry& stats)
    : m_params(params), m_clock("dsm.clock", kPicosecondClock) {
    for (const TierParams& t : params.tiers) {
        const std::string base = std::string("dsm.") + to_string(t.tier);
        m_devices[static_cast<std::size_t>(t.tier)] = std::unique_ptr<Device>(
            new Device{PriorityBandwidthServer(&m_clock, t.read_bytes_per_s / kPicosecondClock),
                       PriorityBandwidthServer(&m_clock, t.write_bytes_per_s / kPicosecondClock),
                       stats.counter(base + ".device_busy_ps",
                                     "time the tier's device spent transferring, read plus write "
                                     "(remote_hbm: the stand-in for another die's HBM)",
                                     "ps")});
    }
}

void DsmPool::attach_hbm(uint32_t die, tlm::tlm_target_socket<>& hbm) {
    if (m_hbms.size() <= die) m_hbms.resize(die + 1, nullptr);
    m_hbms[die] = &hbm;
}

void DsmPool::finalize_stats() {
    for (auto& d : m_devices) {
        if (d) d->busy_ps.set(d->read.busy_cycles() + d->write.busy_cycles());
    }
}

}  // namespace asim
