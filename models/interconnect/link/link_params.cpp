#include "models/interconnect/link/link_params.h"

#include <cmath>

#include <fmt/format.h>

namespace asim {

const char* to_string(LinkOp op) { return op == LinkOp::read ? "read" : "write"; }

std::string LinkParams::problems(const std::string& where) const {
    std::string p;
    auto add = [&](const std::string& s) { p += where + s + "\n"; };
    if (lanes < 1) add("lanes must be >= 1");
    if (!(lane_rate_bps > 0)) add("lane_rate must be > 0");
    if (!(read_efficiency > 0 && read_efficiency <= 1)) add("read_efficiency must be in (0, 1]");
    if (!(write_efficiency > 0 && write_efficiency <= 1)) add("write_efficiency must be in (0, 1]");
    if (mtu_bytes == 0) add("mtu must be > 0");
    if (propagation_ps < 0 || switch_latency_ps < 0 || retry_latency_ps < 0)
        add("latencies must be >= 0");
    if (buffer_packets == 0) add("buffer_packets must be >= 1");
    if (!(error_rate >= 0 && error_rate < 1)) add("error_rate must be in [0, 1)");
    return p;
}

double LinkParams::payload_bytes_per_s(LinkOp op) const {
    const double m = static_cast<double>(mtu_bytes);
    return raw_bytes_per_s() * efficiency(op) * m / (m + static_cast<double>(header_bytes));
}

int64_t LinkParams::packet_time_ps(uint64_t payload, LinkOp op) const {
    const double wire = static_cast<double>(payload + header_bytes);
    return static_cast<int64_t>(std::ceil(wire / (raw_bytes_per_s() * efficiency(op)) * 1e12));
}

}  // namespace asim
