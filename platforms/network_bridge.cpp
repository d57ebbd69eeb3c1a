#include "platforms/network_bridge.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "models/common/clock_domain.h"
#include "models/common/errors.h"

namespace asim {

namespace {

// Trace kinds (traces/FORMAT.md) to engine ops; send and recv are the two ends of one sendrecv.
CollectiveOp engine_op(const std::string& kind) {
    if (kind == "all_reduce") return CollectiveOp::allreduce;
    if (kind == "all_gather") return CollectiveOp::allgather;
    if (kind == "reduce_scatter") return CollectiveOp::reducescatter;
    if (kind == "all_to_all") return CollectiveOp::alltoall;
    if (kind == "broadcast") return CollectiveOp::broadcast;
    if (kind == "send" || kind == "recv") return CollectiveOp::sendrecv;
    throw InputError("collective kind '" + kind +
                     "' is not one of all_reduce, all_gather, reduce_scatter, all_to_all, "
                     "broadcast, send, recv");
}

}  // namespace

NetworkBridge::NetworkBridge(sc_core::sc_module_name name, FlowNetwork& network,
                             CollectiveEngine& engine, const NetworkParams& params,
                             FailureSink& failures)
    : sc_module(name),
      m_network(network),
      m_engine(engine),
      m_params(params),
      m_failures(failures),
      m_fabric(network) {
    m_services.reserve(network.topology().dies());
    for (uint32_t d = 0; d < network.topology().dies(); ++d) m_services.emplace_back(*this, d);
    SC_THREAD(run);
}

CollectiveService& NetworkBridge::service_for(uint32_t die) { return m_services.at(die); }

void NetworkBridge::arrive(uint32_t die, const trace::Op& op, CollectiveService::Started started,
                           std::function<void()> done) {
    const CollectiveOp cop = engine_op(op.collective.kind);
    const std::string kind = cop == CollectiveOp::sendrecv ? "sendrecv" : op.collective.kind;
    const std::vector<int>& group = op.collective.group;
    for (int g : group) {
        if (g < 0 || static_cast<uint32_t>(g) >= m_network.topology().dies()) {
            throw InputError(fmt::format(
                "op {} ({}): group names die {}, which the platform does not have (dies 0..{})",
                op.id, op.name, g, m_network.topology().dies() - 1));
        }
    }
    if (std::find(group.begin(), group.end(), static_cast<int>(die)) == group.end()) {
        throw InputError(fmt::format("op {} ({}): die {} is not in its collective's group", op.id,
                                     op.name, die));
    }
    const uint64_t seq = m_issued[{kind, group}][die]++;
    Pending& p = m_pending[{kind, group, seq}];
    if (p.arrived.empty()) {
        p.request.op = cop;
        p.request.bytes = op.collective.bytes;
        for (int g : group) p.request.group.push_back(static_cast<uint32_t>(g));
        p.request.algo = cop == CollectiveOp::allreduce ? m_params.collectives.allreduce_algo
                                                        : algorithms_for(cop).front();
        if (p.request.algo == CollectiveAlgo::hierarchical &&
            group.size() % m_params.topology.dies_per_node != 0) {
            p.request.algo = CollectiveAlgo::ring;  // a group inside one node: the flat ring
        }
        p.name = op.name.empty() ? op.collective.kind : op.name;
    } else if (op.collective.bytes != p.request.bytes) {
        // Every member names the same collective; a size that differs is a trace-set error, and
        // taking the first member's would give a silently wrong time.
        throw InputError(fmt::format(
            "op {} ({}) on die {}: {} of {} B, but die {} entered the same collective "
            "(number {} of this kind on this group) with {} B; members must agree on the size",
            op.id, op.name, die, op.collective.kind, op.collective.bytes, p.arrived.front(), seq,
            p.request.bytes));
    }
    p.arrived.push_back(die);
    p.done.push_back(std::move(done));
    p.started.push_back(std::move(started));
    if (p.arrived.size() < group.size()) return;

    // The last member has arrived: the collective starts now on the network.
    Pending ready = std::move(p);
    m_pending.erase({kind, group, seq});
    const int64_t now = static_cast<int64_t>(ClockDomain::to_ps(sc_core::sc_time_stamp()));
    auto dones = std::make_shared<std::vector<std::function<void()>>>(std::move(ready.done));
    const uint32_t id = m_engine.start(ready.request, now, [dones](const CollectiveResult&) {
        for (auto& d : *dones) d();
    });
    if (m_params.collectives.die_work) {
        for (std::size_t i = 0; i < ready.arrived.size(); ++i) {
            if (!ready.started[i]) continue;
            // The member's rank: its place in the group.
            const auto rank =
                static_cast<uint32_t>(std::find(ready.request.group.begin(),
                                                ready.request.group.end(), ready.arrived[i]) -
                                      ready.request.group.begin());
            const RankTraffic t = m_engine.traffic(id, rank);
            CollectiveDieWork work;
            work.read_bytes = t.sent;
            work.write_bytes = t.received;
            work.reduce_bytes = t.reduced;
            work.buffer_bytes = m_params.collectives.buffer_bytes;
            ready.started[i](work);
        }
    }
    ++m_started;
    m_kick.notify(sc_core::SC_ZERO_TIME);
}

void NetworkBridge::run() {
    try {
        while (true) {
            const int64_t now = static_cast<int64_t>(ClockDomain::to_ps(sc_core::sc_time_stamp()));
            m_network.run_until(now);
            const int64_t next = m_network.next_event_ps();
            m_wake_at = next;
            if (next == std::numeric_limits<int64_t>::max()) {
                wait(m_kick);
            } else {
                wait(ClockDomain::from_ps(static_cast<Picoseconds>(next - now)), m_kick);
            }
        }
    } catch (const sc_core::sc_unwind_exception&) {
        throw;
    } catch (...) {
        m_failures.fail(std::current_exception());
    }
}

Picoseconds NetworkBridge::carry(uint32_t src, uint32_t dst, uint64_t bytes, bool write,
                                 bool background) {
    const Picoseconds sent = m_fabric.carry(src, dst, bytes, write, background);
    // The stream's end (or the rates it changed) may come before run() planned to wake.
    if (m_network.next_event_ps() < m_wake_at) {
        m_wake_at = m_network.next_event_ps();
        m_kick.notify(sc_core::SC_ZERO_TIME);
    }
    return sent;
}

std::string NetworkBridge::waiting_report() const {
    std::string out;
    int listed = 0;
    for (const auto& [key, p] : m_pending) {
        if (listed++ == 10) break;
        std::string members;
        for (uint32_t d : p.arrived) members += (members.empty() ? "" : ",") + std::to_string(d);
        std::string group;
        for (int g : std::get<1>(key)) group += (group.empty() ? "" : ",") + std::to_string(g);
        out += fmt::format("\n  {} '{}' on dies [{}]: reached by [{}] only", std::get<0>(key),
                           p.name, group, members);
    }
    return out;
}

}  // namespace asim
