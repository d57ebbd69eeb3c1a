// The on-die network as a TLM module between the engines and the L2 (models/interconnect/noc).
//
// Every engine's port binds to `from_engines` (a port each, in binding order); the network
// forwards each request to the L2 through `to_l2`. What it adds:
//   - The distances. Each port sits at a router (NocPlacement); the request carries, in its
//     TransactionInfo (`noc_route`), that port's one-way latency to every L2 slice and their mean.
//     The L2 interleaves lines over its slices by a hash that only it knows, so it adds each
//     line's distance to its slice before the slice serves it and again to the data coming back.
//     The latency from the slices to the HBM controllers (slice_to_hbm) is the L2's to add to its
//     fills and write-backs.
//   - The mesh links (when `link_bytes_per_cycle` is set): after the L2 has served a request the
//     network reserves the request's share of every link it loads (NocRoutes::link_shares) from
//     its issue time; the request completes no sooner than its most delayed link plus the port's
//     mean distance. Stat `<die>.noc.link_wait_ps`: the time requests waited for links, summed.
//     Prefetches (the H-JSD's, into the L2) return no data and do not load the links.
//
// A TlmTarget like every target: a bad payload gets its error response here; the address range
// is the L2's to check. A payload without a TransactionInfo cannot carry its route: it gets a
// generic error response.
#pragma once

#include <cstdint>
#include <vector>

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "models/common/bandwidth_server.h"
#include "models/common/clock_domain.h"
#include "models/common/payload.h"
#include "models/common/stats.h"
#include "models/common/tlm_target.h"
#include "models/interconnect/noc/noc.h"

namespace asim {

// What the network connects on one die.
struct NocPlacement {
    static constexpr uint32_t kCentre = ~uint32_t{0};
    uint32_t cores = 0;
    uint32_t l2_slices = 0;
    uint32_t hbm_controllers = 0;
    // Per port of `from_engines`, in binding order: the core it belongs to, or kCentre (the
    // die's SDMA port, at the middle router).
    std::vector<uint32_t> port_core;
};

class OnDieNetwork : public sc_core::sc_module, public TlmTarget<OnDieNetwork> {
public:
    tlm_utils::multi_passthrough_target_socket<OnDieNetwork> from_engines;
    tlm_utils::simple_initiator_socket<OnDieNetwork> to_l2;

    // Hop latencies in cycles of `clock` (the cores'), which also clocks the links.
    OnDieNetwork(sc_core::sc_module_name name, const NocParams& params,
                 const NocPlacement& placement, const ClockDomain& clock, StatsRegistry& stats);

    // One way, from an L2 slice to its nearest HBM controller (the mean over slices).
    Picoseconds slice_to_hbm() const { return m_slice_to_hbm; }
    // Port `port`'s distances to the slices (what its requests carry to the L2).
    const SliceDistances& route(std::size_t port) const { return m_ports[port].route; }
    std::size_t ports() const { return m_ports.size(); }

    // The latency of `hops` routers at the network's hop_cycles, rounded to whole cycles of
    // `clock`; and distances to the slices with their mean (what a request carries). Also for
    // benches that stand for an average core without a network module (mem-replay --target l2).
    static Picoseconds hop_latency(const NocParams& params, const ClockDomain& clock, double hops);
    static SliceDistances slice_distances(std::vector<Picoseconds> one_way);

private:
    struct Port {
        SliceDistances route;
        // The links its data loads, with the share of a request's bytes each carries: reads
        // (slices to the port) and writes (the port to the slices). Empty: links not modelled.
        std::vector<LinkShare> read_links, write_links;
    };
    friend class TlmTarget<OnDieNetwork>;
    uint64_t address_limit() const { return ~uint64_t{0}; }
    Picoseconds serve(tlm::tlm_generic_payload& p, sc_core::sc_time& delay, int port);
    // When `bytes` from (reads) or to (writes) `port`, issued at `issued`, have crossed the links.
    Picoseconds links_done(const Port& port, bool is_write, uint64_t bytes, Picoseconds issued);

    std::vector<Port> m_ports;
    Picoseconds m_slice_to_hbm = 0;
    std::vector<BandwidthServer> m_links;  // empty: links not modelled
    Counter& m_link_wait;
};

}  // namespace asim
