// YAML for a link (see link/README.md for the units and sources).
#include <string>

#include "models/common/config.h"
#include "models/common/errors.h"
#include "models/common/params.h"
#include "models/interconnect/link/link_params.h"

namespace asim {

namespace {
// Every key defaults to the parent's: an uplink of a Clos to the die link, the others to the
// link defaults (LinkParams) where they have one.
const ParamTable kLink(
    {"network.node.link", "network.node.fallback", "network.scale_out.nic",
     "network.scale_out.uplink"},
    "Link",
    {Param::integer("lanes", "", "lanes (SerDes) per direction")
         .dflt_from("the parent's, else 1")
         .range(1, 4096),
     Param::bit_rate("lane_rate", "signalling rate per lane and direction")
         .dflt_from("the parent's; required for a die link"),
     Param::real("read_efficiency", "", "share of the raw rate that carries read-response packets")
         .dflt_from("the parent's, else 1")
         .range(1e-6, 1.0),
     Param::real("write_efficiency", "", "share of the raw rate that carries write packets")
         .dflt_from("the parent's, else 1")
         .range(1e-6, 1.0),
     Param::size("mtu", "payload bytes per packet").dflt_from("the parent's, else 4KiB"),
     Param::size("header", "wire bytes added to each packet (headers, CRC, framing)")
         .dflt_from("the parent's, else 0B")
         .zero_allowed(),
     Param::time("propagation", "wire or optics flight time").dflt_from("the parent's, else 0ns"),
     Param::time("switch_latency", "forwarding latency of the element the link enters")
         .dflt_from("the parent's, else 0ns"),
     Param::integer("buffer_packets", "packets", "receive buffer: the sender's credits")
         .dflt_from("the parent's, else 64")
         .range(1, 1 << 20),
     Param::real("error_rate", "", "probability that a packet arrives corrupted (it is retried)")
         .dflt_from("the parent's, else 0")
         .range(0.0, 0.999),
     Param::time("retry_latency", "NAK and replay turnaround added to a retried packet")
         .dflt_from("the parent's, else 0ns")});
}  // namespace

LinkParams parse_link_params(const ConfigNode& node, const LinkParams& d) {
    LinkParams p;
    p.lanes = static_cast<int>(kLink.integer(node, "lanes", d.lanes));
    p.lane_rate_bps = d.lane_rate_bps > 0 ? kLink.bit_rate(node, "lane_rate", d.lane_rate_bps)
                                          : kLink.bit_rate(node, "lane_rate");
    p.read_efficiency = kLink.real(node, "read_efficiency", d.read_efficiency);
    p.write_efficiency = kLink.real(node, "write_efficiency", d.write_efficiency);
    p.mtu_bytes = kLink.size(node, "mtu", d.mtu_bytes);
    p.header_bytes = kLink.size(node, "header", d.header_bytes);
    p.propagation_ps = kLink.time_ps(node, "propagation", d.propagation_ps);
    p.switch_latency_ps = kLink.time_ps(node, "switch_latency", d.switch_latency_ps);
    p.buffer_packets =
        static_cast<uint32_t>(kLink.integer(node, "buffer_packets", d.buffer_packets));
    p.error_rate = kLink.real(node, "error_rate", d.error_rate);
    p.retry_latency_ps = kLink.time_ps(node, "retry_latency", d.retry_latency_ps);
    const std::string bad = p.problems("");
    if (!bad.empty() && !node.problems_reported()) node.report("", bad.substr(0, bad.size() - 1));
    return p;
}

}  // namespace asim
