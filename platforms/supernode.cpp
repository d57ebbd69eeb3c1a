#include "platforms/supernode.h"

#include <fmt/format.h>

#include <utility>

namespace asim {

Supernode::Supernode(const Platform& platform, const NetworkParams& net,
                     std::unique_ptr<const Topology> topology, StatsRegistry& stats,
                     FailureSink& failures)
    : m_stats(stats),
      m_failures(failures),
      m_topology(std::move(topology)),
      m_network(*m_topology, net.max_paths, make_routing(net)),
      m_engine(m_network, net.collectives),
      m_bridge("network", m_network, m_engine, net, failures) {
    const std::vector<uint32_t> faults = resolve_faults(*m_topology, net);
    for (std::size_t i = 0; i < faults.size(); ++i)
        m_network.set_link_down(faults[i], net.faults[i].at_ps);
    // The pool's shared devices, and every detailed die's HBM as the others' remote_hbm, whose
    // traffic crosses the links too.
    if (platform.die.dsm.enabled()) {
        m_pool = std::make_unique<DsmPool>(platform.die.dsm, stats);
        m_pool->set_fabric(&m_bridge);
    }
}

Die& Supernode::add_detailed(uint32_t die, const DieParams& params, trace::TraceReader& trace,
                             Picoseconds util_window_ps, Timeline* timeline) {
    const std::string name = "die" + std::to_string(die);
    auto d = std::make_unique<Die>(name.c_str(), params, m_stats, m_failures, m_pool.get(), die);
    d->set_util_window(util_window_ps);
    d->dispatcher().set_trace(&trace);
    d->dispatcher().set_collective_service(&m_bridge.service_for(die));
    if (timeline) {
        d->record_to(timeline, name);
        d->dispatcher().ledger().keep_deps(true);
    }
    Die& ref = *d;
    m_members.push_back({die, std::move(d), nullptr});
    return ref;
}

FastDie& Supernode::add_fast(uint32_t die, std::vector<FastOp> ops, bool keep_deps) {
    const std::string name = "die" + std::to_string(die);
    auto f =
        std::make_unique<FastDie>(name.c_str(), std::move(ops), m_stats, m_failures, keep_deps);
    f->set_collective_service(&m_bridge.service_for(die));
    FastDie& ref = *f;
    m_members.push_back({die, nullptr, std::move(f)});
    return ref;
}

bool Supernode::finished(std::size_t member) const {
    const Member& m = m_members[member];
    return m.detailed ? m.detailed->dispatcher().finished() : m.fast->finished();
}

uint64_t Supernode::ops_completed(std::size_t member) const {
    const Member& m = m_members[member];
    return m.detailed ? m.detailed->dispatcher().ops_completed() : m.fast->ops_completed();
}

const OpLedger& Supernode::ledger(std::size_t member) const {
    const Member& m = m_members[member];
    return m.detailed ? m.detailed->dispatcher().ledger() : m.fast->ledger();
}

void Supernode::set_progress(const std::function<void(std::size_t, uint64_t)>& report) {
    for (std::size_t i = 0; i < m_members.size(); ++i) {
        auto member_report = [report, i](uint64_t ops) { report(i, ops); };
        if (m_members[i].detailed) {
            m_members[i].detailed->dispatcher().set_progress(member_report);
        } else {
            m_members[i].fast->set_progress(member_report);
        }
    }
}

std::string Supernode::unfinished() const {
    std::string text;
    for (std::size_t i = 0; i < m_members.size(); ++i) {
        if (!finished(i))
            text += fmt::format("\n  die{}: {} ops completed", m_members[i].die, ops_completed(i));
    }
    return text;
}

void Supernode::finalize_stats() {
    for (Member& m : m_members) {
        if (m.detailed) {
            m.detailed->finalize_stats();
        } else {
            m.fast->finalize_stats();
        }
    }
    if (m_pool) m_pool->finalize_stats();
}

}  // namespace asim
