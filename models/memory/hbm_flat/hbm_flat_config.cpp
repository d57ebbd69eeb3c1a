#include "models/common/config.h"
#include "models/memory/hbm_flat/hbm_flat.h"

namespace asim {

HbmFlatParams parse_hbm_flat_params(const ConfigNode& node) {
    HbmFlatParams p;
    p.capacity_bytes = node.size_bytes("capacity");
    p.stacks = static_cast<uint32_t>(node.integer("stacks", Range{1, 64}));
    p.channels_per_stack = static_cast<uint32_t>(node.integer("channels_per_stack", Range{1, 256}));
    p.bandwidth_bytes_per_s = node.byte_rate("bandwidth");
    p.clock_hz = static_cast<uint64_t>(node.frequency_hz("clock"));
    p.interleave_bytes = node.size_bytes("interleave", p.interleave_bytes);
    p.latency_ps = node.time_ps("latency");
    for (const auto& [key, message] : p.validate()) node.fail(key, message);
    return p;
}

}  // namespace asim
