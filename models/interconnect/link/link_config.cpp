// YAML for a link (see link/README.md for the keys, units and sources).
#include <string>

#include "models/common/config.h"
#include "models/common/errors.h"
#include "models/interconnect/link/link_params.h"

namespace asim {

LinkParams parse_link_params(const ConfigNode& node, const LinkParams& d) {
    LinkParams p;
    p.lanes = static_cast<int>(node.integer("lanes", d.lanes, {1, 4096}));
    p.lane_rate_bps = d.lane_rate_bps > 0 ? node.bit_rate("lane_rate", d.lane_rate_bps) : node.bit_rate("lane_rate");
    p.read_efficiency = node.real("read_efficiency", d.read_efficiency, {1e-6, 1.0});
    p.write_efficiency = node.real("write_efficiency", d.write_efficiency, {1e-6, 1.0});
    p.mtu_bytes = node.size_bytes("mtu", d.mtu_bytes);
    p.header_bytes = node.size_bytes_or_zero("header", d.header_bytes);
    p.propagation_ps = node.time_ps("propagation", d.propagation_ps);
    p.switch_latency_ps = node.time_ps("switch_latency", d.switch_latency_ps);
    p.buffer_packets = static_cast<uint32_t>(node.integer("buffer_packets", d.buffer_packets, {1, 1 << 20}));
    p.error_rate = node.real("error_rate", d.error_rate, {0.0, 0.999});
    p.retry_latency_ps = node.time_ps("retry_latency", d.retry_latency_ps);
    const std::string bad = p.problems("");
    if (!bad.empty()) node.fail("", bad.substr(0, bad.size() - 1));
    return p;
}

}  // namespace asim
