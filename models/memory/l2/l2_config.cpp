#include "models/common/config.h"
#include "models/memory/l2/l2_cache.h"

namespace asim {

L2Params parse_l2_params(const ConfigNode& node, uint64_t address_space_bytes) {
    L2Params p;
    p.size_bytes = node.size_bytes("size");
    p.line_bytes = node.size_bytes("line");
    p.sector_bytes = node.size_bytes("sector", p.line_bytes);
    p.ways = static_cast<uint32_t>(node.integer("ways", Range{1, 64}));
    p.slices = static_cast<uint32_t>(node.integer("slices", Range{1, 1024}));
    p.slice_bandwidth_bytes_per_s = node.byte_rate("slice_bandwidth");
    p.clock_hz = static_cast<uint64_t>(node.frequency_hz("clock"));
    p.hit_latency_cycles = static_cast<uint32_t>(node.integer("hit_latency_cycles", Range{0, 100000}));
    p.mshrs = static_cast<uint32_t>(node.integer("mshrs", p.mshrs, Range{1, 1 << 20}));
    p.demand_mshrs = static_cast<uint32_t>(node.integer("demand_mshrs", p.demand_mshrs, Range{0, 1 << 20}));
    p.replacement = node.string("replacement", p.replacement);
    p.protect_prefetched = node.boolean("protect_prefetched", p.protect_prefetched);
    if (const auto parts = node.optional_child("partitions")) {
        // A partition of 0B has no ways: its stream class bypasses the L2. Ways left over after
        // the sizes go to the general partition, or to the classes marked `rest`.
        // `rest`: the class has no partition of its own and shares the ways left over with the
        // other `rest` classes.
        const char* names[] = {"weight", "activation", "general"};
        for (std::size_t i = 0; i < 3; ++i) {
            if (parts->has(names[i]) && parts->string(names[i]) == "rest") {
                p.partition_rest[i] = true;
            } else {
                p.partition_bytes[i] = parts->size_bytes_or_zero(names[i], 0);
            }
        }
        if (!p.partitioned()) parts->fail("weight", "at least one partition must be non-zero");
    }
    p.address_space_bytes = address_space_bytes;
    for (const auto& [key, message] : p.validate()) node.fail(key, message);
    return p;
}

}  // namespace asim
