// One direction of a die-to-die or switch link: lanes x rate, read and write efficiency,
// packetisation (MTU payload + per-packet header), propagation, the receiver's buffer (the
// credits the sender holds), an error rate driving link-level retry, and the per-hop switching
// latency of the element the link enters. Plain data with validate(); parsing lives in
// link_config.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace asim {

class ConfigNode;

enum class LinkOp { read, write };
const char* to_string(LinkOp op);

struct LinkParams {
    int lanes = 1;
    double lane_rate_bps = 0.0;     // bit/s per lane, per direction
    double read_efficiency = 1.0;   // share of the raw rate that carries read-response packets
    double write_efficiency = 1.0;  // share of the raw rate that carries write packets
    uint64_t mtu_bytes = 4096;      // payload bytes per packet
    uint64_t header_bytes = 0;      // wire bytes added to each packet (headers, CRC, framing)
    int64_t propagation_ps = 0;     // wire / optics flight time
    int64_t switch_latency_ps = 0;  // forwarding latency of the element this link enters
    uint32_t buffer_packets = 64;   // receiver buffer in packets = the sender's credits
    double error_rate = 0.0;        // probability that a packet arrives corrupted (retried)
    int64_t retry_latency_ps = 0;   // NAK and replay turnaround added to a retried packet

    // Every problem, one per line, each prefixed by `where` ("" when valid).
    std::string problems(const std::string& where) const;

    double raw_bytes_per_s() const { return static_cast<double>(lanes) * lane_rate_bps / 8.0; }
    double efficiency(LinkOp op) const {
        return op == LinkOp::read ? read_efficiency : write_efficiency;
    }
    // Payload bytes per second of a long stream of full packets.
    double payload_bytes_per_s(LinkOp op) const;
    // Wire time of one packet carrying `payload` bytes (header included).
    int64_t packet_time_ps(uint64_t payload, LinkOp op) const;
    uint64_t packets_for(uint64_t payload) const {
        return payload == 0 ? 1 : (payload + mtu_bytes - 1) / mtu_bytes;
    }
};

// Reads a link description (keys: lanes, lane_rate, read_efficiency, write_efficiency, mtu,
// header, propagation, switch_latency, buffer_packets, error_rate, retry_latency) on top of
// `defaults`; throws ConfigError naming the key.
LinkParams parse_link_params(const ConfigNode& node, const LinkParams& defaults);

}  // namespace asim
