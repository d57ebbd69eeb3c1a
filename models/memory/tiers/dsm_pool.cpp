#include "models/memory/tiers/dsm_pool.h"

#include <algorithm>

namespace asim {

namespace {
constexpr uint64_t kPicosecondClock = 1'000'000'000'000ULL;  // servers count in ps
}

DsmPool::DsmPool(const DsmParams& params, StatsRegistry& stats)
    : m_params(params), m_stats(stats), m_clock("dsm.clock", kPicosecondClock) {}

DsmPool::Device* DsmPool::device(Tier t, uint32_t die) {
    const TierParams* tp = m_params.find(t);
    if (!tp) return nullptr;
    const uint32_t per_node = std::max<uint32_t>(1, m_params.dies_per_node);
    const uint32_t node = tp->kind.device == PoolTierKind::Device::kPerNode ? die / per_node : 0;
    std::unique_ptr<Device>& d = m_devices[{t, node}];
    if (!d) {
        d = std::unique_ptr<Device>(
            new Device{CalendarServer(&m_clock, tp->read_bytes_per_s / kPicosecondClock),
                       CalendarServer(&m_clock, tp->write_bytes_per_s / kPicosecondClock)});
    }
    return d.get();
}

void DsmPool::attach_hbm(uint32_t die, tlm::tlm_target_socket<>& hbm, int64_t unloaded_latency_ps) {
    if (m_members.size() <= die) m_members.resize(die + 1);
    m_members[die].hbm = &hbm;
    m_members[die].hbm_latency_ps = unloaded_latency_ps;
}

void DsmPool::attach_egress(uint32_t die, CalendarServer& egress) {
    if (m_members.size() <= die) m_members.resize(die + 1);
    m_members[die].egress = &egress;
}

DsmPool::Owner DsmPool::owner(uint32_t die) const {
    if (die >= m_members.size()) return {};
    const Member& m = m_members[die];
    return {m.hbm ? m.hbm->get_base_export().operator->() : nullptr, m.hbm_latency_ps, m.egress};
}

void DsmPool::finalize_stats() {
    std::map<Tier, uint64_t> busy;  // per tier, summed over its nodes' devices
    for (const auto& [key, d] : m_devices) {
        busy[key.first] += d->read.busy_cycles() + d->write.busy_cycles();
    }
    const StatsGroup dsm(m_stats, "dsm");  // the pool is no module: its group is named here
    for (const auto& [tier, ps] : busy) {
        dsm.group(to_string(tier))
            .counter("device_busy_ps",
                     "time the tier's devices spent transferring, read plus write, summed over "
                     "nodes (remote_hbm: the stand-in for another die's HBM)",
                     "ps")
            .set(ps);
    }
}

}  // namespace asim
