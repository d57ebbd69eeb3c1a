#include "models/memory/tiers/dsm_pool.h"

#include <algorithm>

namespace asim {

DsmPool::DsmPool(const DsmParams& params, StatsRegistry& stats)
    : m_params(params), m_stats(stats), m_clock("dsm.clock", kPoolClockHz) {}

uint32_t DsmPool::node_of(uint32_t die) const {
    return die / std::max<uint32_t>(1, m_params.dies_per_node);
}

DsmPool::Device* DsmPool::device(Tier t, uint32_t die) {
    const TierParams* tp = m_params.find(t);
    if (!tp) return nullptr;
    const uint32_t node = tp->kind.per_node() ? node_of(die) : 0;
    std::unique_ptr<Device>& d = m_devices[{t, node}];
    if (!d) {
        d = std::unique_ptr<Device>(
            new Device{CalendarServer(&m_clock, tp->read_bytes_per_s / kPoolClockHz),
                       CalendarServer(&m_clock, tp->write_bytes_per_s / kPoolClockHz)});
    }
    return d.get();
}

NodeTiering* DsmPool::node_tiering(Tier t, uint32_t die) {
    if (!m_params.warm.enable || t != m_params.warm.from) return nullptr;
    std::unique_ptr<NodeTiering>& n = m_node_tiering[node_of(die)];
    if (!n) {
        n = std::make_unique<NodeTiering>(m_params.warm, *device(m_params.warm.from, die),
                                          *device(m_params.warm.into, die), &m_clock);
    }
    return n.get();
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
    std::map<Tier, uint64_t> busy, overlap;  // per tier, summed over its nodes' devices
    for (const auto& [key, d] : m_devices) {
        busy[key.first] += d->read.busy_cycles() + d->write.busy_cycles();
        overlap[key.first] += d->read.overlap_cycles() + d->write.overlap_cycles();
    }
    const StatsGroup dsm(m_stats, "dsm");  // the pool is no module: its group is named here
    if (m_params.warm.enable) {
        NodeTiering::Counters sum;  // over the nodes
        for (const auto& [node, n] : m_node_tiering) {
            const NodeTiering::Counters& c = n->counters();
            sum.warmed += c.warmed;
            sum.cooled += c.cooled;
            sum.hits += c.hits;
            sum.skipped += c.skipped;
            sum.written_back_bytes += c.written_back_bytes;
        }
        const StatsGroup warm = dsm.group("warm");
        warm.counter("warmed", "blocks of dsm.warm.from copied into dsm.warm.into, all nodes")
            .set(sum.warmed);
        warm.counter("cooled", "warm copies evicted from their region").set(sum.cooled);
        warm.counter("hits", "accesses served by a warm copy").set(sum.hits);
        warm.counter("skipped", "moves skipped: the node copy engine's backlog too long")
            .set(sum.skipped);
        warm.counter("written_back_bytes", "dirty warm copies written back", "B")
            .set(sum.written_back_bytes);
    }
    for (const auto& [tier, ps] : busy) {
        dsm.group(to_string(tier))
            .counter("device_busy_ps",
                     "time the tier's devices spent transferring, read plus write, summed over "
                     "nodes (remote_hbm: the stand-in for another die's HBM)",
                     "ps")
            .set(ps);
        dsm.group(to_string(tier))
            .counter("device_overlap_ps",
                     "demand time on the tier's devices that ran over background transfers "
                     "already granted (calendar_server.h), summed over nodes",
                     "ps")
            .set(overlap[tier]);
    }
}

}  // namespace asim
