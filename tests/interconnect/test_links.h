// Link descriptions shared by the interconnect tests.
#pragma once

#include "models/interconnect/link/link_params.h"
#include "models/interconnect/topology/topology.h"

namespace asim::test {

// 200 Gbps, no overhead, no buffering limit that matters: the alpha-beta link (beta = 25 GB/s
// decimal, alpha = `latency_ps` per hop).
inline LinkParams alpha_beta_link(int64_t latency_ps) {
    LinkParams l;
    l.lanes = 1;
    l.lane_rate_bps = 200e9;
    l.mtu_bytes = 1ull << 40;  // one packet per message: no store-and-forward term
    l.header_bytes = 0;
    l.propagation_ps = latency_ps;
    l.switch_latency_ps = 0;
    l.buffer_packets = 64;
    return l;
}

// A UB-like link: 28 GB/s, 4 KiB packets with 32 B headers, 100 ns per hop.
inline LinkParams ub_link() {
    LinkParams l;
    l.lanes = 1;
    l.lane_rate_bps = 224e9;
    l.read_efficiency = 0.84;
    l.write_efficiency = 0.69;
    l.mtu_bytes = 4096;
    l.header_bytes = 32;
    l.propagation_ps = 10'000;
    l.switch_latency_ps = 90'000;
    l.buffer_packets = 16;
    return l;
}

// One node of `dies` dies on a ring of `link`s.
inline TopologyParams ring_topology(uint32_t dies, bool bidirectional, const LinkParams& link) {
    TopologyParams t;
    t.dies = t.dies_per_node = dies;
    t.node_topology = "ring";
    t.node_params.set("bidirectional", bidirectional);
    t.die_link = link;
    return t;
}

// `nodes` nodes of `dies_per_node` dies in a `kind` node topology, every link class a UB-like
// link (the standby star's too, used only when has_fallback is set).
inline TopologyParams node_topology(const std::string& kind, uint32_t dies_per_node,
                                    uint32_t nodes = 1) {
    TopologyParams t;
    t.dies = dies_per_node * nodes;
    t.dies_per_node = dies_per_node;
    t.node_topology = kind;
    t.die_link = ub_link();
    t.uplink = ub_link();
    t.nic_link = ub_link();
    t.fallback_link = ub_link();
    t.host_copy_bytes_per_s = 100e9;  // a host copy faster than one UB link
    return t;
}

}  // namespace asim::test
