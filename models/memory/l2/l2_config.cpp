#include "models/common/config.h"
#include "models/memory/l2/l2_cache.h"

namespace asim {

L2Params parse_l2_params(const ConfigNode& node, uint64_t address_space_bytes) {
    L2Params p;
    p.size_bytes = node.size_bytes("size");
    p.line_bytes = node.size_bytes("line");
    p.ways = static_cast<uint32_t>(node.integer("ways", Range{1, 64}));
    p.slices = static_cast<uint32_t>(node.integer("slices", Range{1, 1024}));
    p.slice_bandwidth_bytes_per_s = node.byte_rate("slice_bandwidth");
    p.clock_hz = static_cast<uint64_t>(node.frequency_hz("clock"));
    p.hit_latency_cycles = static_cast<uint32_t>(node.integer("hit_latency_cycles", Range{0, 100000}));
    p.address_space_bytes = address_space_bytes;
    for (const auto& [key, message] : p.validate()) node.fail(key, message);
    return p;
}

}  // namespace asim
