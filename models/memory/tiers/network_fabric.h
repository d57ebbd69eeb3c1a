// The pool's traffic between dies on the supernode's flow network (DsmPool's PoolFabric): one
// stream (FlowNetwork::open_stream) per source, destination, direction and class, opened at its
// first use. A push first brings the network to the kernel's time, so a stream joins the links as
// they are at that instant and takes its max-min share beside the collectives' transfers.
//
// Demand and background (prefetch, staging, migration) are separate streams, and demand goes
// first on the links as at the port (DESIGN §5): a background stream weighs kBackgroundWeight in
// the links' weighted max-min share, so beside a demand stream or a collective's transfer it gets
// 1/17 of a link they both want, and never nothing (its bytes' completion is computed when they
// are pushed, which a stream starved to zero could not give).
#pragma once

#include <cstdint>
#include <unordered_map>

#include "models/interconnect/network/flow_network.h"
#include "models/memory/tiers/dsm_pool.h"

namespace asim {

class NetworkFabric : public PoolFabric {
public:
    explicit NetworkFabric(FlowNetwork& network) : m_network(network) {}

    Picoseconds carry(uint32_t src, uint32_t dst, uint64_t bytes, bool write,
                      bool background) override;
    static constexpr double kBackgroundWeight = 1.0 / 16;  // estimate: demand first, no starving

private:
    FlowNetwork& m_network;
    std::unordered_map<uint64_t, uint32_t> m_streams;  // (src, dst, write, background) -> stream
};

}  // namespace asim
