// The supernode's network inside a SystemC run: the dies' dispatchers hand their collective ops
// here (CollectiveService); when every member of a collective's group has reached it, it starts
// on the collective engine (models/interconnect/collectives) at that simulated time, and each
// member's op completes when the engine says the collective has finished.
//
// The flow network keeps its own event queue; a SystemC thread runs it up to the kernel's time
// and then sleeps until its next event or until a collective starts, so an idle network costs
// nothing and both clocks stay the same.
//
// When it starts, each member die gets its share of the data movement and reductions in its own
// memory and vector cores (network.collectives.die_work; models/chip/die/collective_work.h).
//
// The DSM pool's traffic between dies (remote_hbm reads and writes) crosses the same network:
// the bridge is the pool's PoolFabric, and each (source, destination, direction, demand or
// background) is one stream of the flow network that the dies' tier routers push bytes into.
//
// Matching: the k-th collective a die issues on a given (kind, group) pairs with the k-th of every
// other member; a `send` on [s, r] pairs with the `recv` on [s, r].
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "models/chip/die/op_dispatcher.h"
#include "models/common/failure_sink.h"
#include "models/interconnect/collectives/collective_engine.h"
#include "models/interconnect/network_params.h"
#include "models/memory/tiers/network_fabric.h"

namespace asim {

class NetworkBridge : public sc_core::sc_module, public PoolFabric {
public:
    NetworkBridge(sc_core::sc_module_name name, FlowNetwork& network, CollectiveEngine& engine,
                  const NetworkParams& params, FailureSink& failures);

    // The service a die's dispatcher uses.
    CollectiveService& service_for(uint32_t die);

    // Collectives some members reached and others never did, for the deadlock message.
    std::string waiting_report() const;
    uint64_t collectives_started() const { return m_started; }

    // PoolFabric: the tier routers' remote_hbm bytes, on the flow network's streams.
    Picoseconds carry(uint32_t src, uint32_t dst, uint64_t bytes, bool write,
                      bool background) override;

private:
    SC_HAS_PROCESS(NetworkBridge);
    class DieService : public CollectiveService {
    public:
        DieService(NetworkBridge& bridge, uint32_t die) : m_bridge(bridge), m_die(die) {}
        void start(const trace::Op& op, Started started, std::function<void()> done) override {
            m_bridge.arrive(m_die, op, std::move(started), std::move(done));
        }

    private:
        NetworkBridge& m_bridge;
        uint32_t m_die;
    };
    struct Pending {
        CollectiveRequest request;
        std::vector<std::function<void()>> done;
        std::vector<CollectiveService::Started> started;  // per member, in arrival order
        std::vector<uint32_t> arrived;
        std::string name;
    };
    void arrive(uint32_t die, const trace::Op& op, CollectiveService::Started started,
                std::function<void()> done);
    void run();

    FlowNetwork& m_network;
    CollectiveEngine& m_engine;
    const NetworkParams& m_params;
    FailureSink& m_failures;
    std::vector<DieService> m_services;
    // (kind, group) -> per-die count of collectives issued on it
    std::map<std::pair<std::string, std::vector<int>>, std::map<uint32_t, uint64_t>> m_issued;
    // (kind, group, sequence) -> the members that reached it
    std::map<std::tuple<std::string, std::vector<int>, uint64_t>, Pending> m_pending;
    sc_core::sc_event m_kick;
    int64_t m_wake_at = 0;  // when run() wakes next unless kicked
    NetworkFabric m_fabric;
    uint64_t m_started = 0;
};

}  // namespace asim
