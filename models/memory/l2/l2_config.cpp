#include "models/common/config.h"
#include "models/common/params.h"
#include "models/memory/l2/l2_cache.h"

namespace asim {

namespace {

const ParamTable kL2(
    {"die.l2"}, "L2 cache",
    {Param::size("size", "capacity"), Param::size("line", "line size (tag granularity)"),
     Param::size("sector", "sector size (fill and hit granularity)").dflt_from("line"),
     Param::integer("ways", "", "associativity").range(1, 64),
     Param::integer("slices", "", "address-interleaved slices, each with its own port")
         .range(1, 1024),
     Param::byte_rate("slice_bandwidth", "bandwidth of one slice's port"),
     Param::frequency("clock", "clock of the hit pipeline"),
     Param::integer("hit_latency_cycles", "cycles", "hit latency at the slice, without the NoC")
         .range(0, 100000),
     Param::integer("mshrs", "entries", "outstanding line fills, whole L2")
         .dflt("256")
         .range(1, 1 << 20)
         .source(
             "estimate: ascend960 sets 4096, the bandwidth x latency product of a streaming read"),
     Param::integer("demand_mshrs", "entries",
                    "of the mshrs, kept for demand misses (prefetches use the rest)")
         .dflt("0")
         .range(0, 1 << 20),
     Param::integer("write_back_entries", "entries",
                    "posted writes (write-backs, write-through) buffered for a memory that makes "
                    "them wait; a request whose evictions find it full waits for room")
         .dflt("512")
         .range(1, 1 << 20)
         .source("estimate: as many as the writes ascend960's HBM controllers buffer (256 "
                 "pseudo-channels x 32 x 32 B = 512 lines of 512 B)"),
     Param::implementation("replacement", replacement_policy_registry(), "replacement policy")
         .dflt("lru"),
     Param::boolean(
         "protect_prefetched",
         "lines the H-JSD holds credit for are not evicted by demand before their first use")
         .dflt("true")});

// Each partition: a size (0B: its class bypasses the L2) or `rest` (no partition of its own; the
// rest classes share the ways left over).
const ParamTable kPartitions(
    {"die.l2.partitions"}, "L2 partitions by stream class",
    {Param::string("weight", "ways for weights: a size, 0B (bypass) or rest").optional(),
     Param::string("activation", "ways for activations: a size, 0B or rest").optional(),
     Param::string("general",
                   "ways for the rest: a size, 0B or rest (default: the ways "
                   "left over)")
         .optional()});

}  // namespace

L2Params parse_l2_params(const ConfigNode& node, uint64_t address_space_bytes) {
    L2Params p;
    p.size_bytes = kL2.size(node, "size");
    p.line_bytes = kL2.size(node, "line");
    p.sector_bytes = kL2.size(node, "sector", p.line_bytes);
    p.ways = static_cast<uint32_t>(kL2.integer(node, "ways"));
    p.slices = static_cast<uint32_t>(kL2.integer(node, "slices"));
    p.slice_bandwidth_bytes_per_s = kL2.byte_rate(node, "slice_bandwidth");
    p.clock_hz = static_cast<uint64_t>(kL2.frequency_hz(node, "clock"));
    p.hit_latency_cycles = static_cast<uint32_t>(kL2.integer(node, "hit_latency_cycles"));
    p.mshrs = static_cast<uint32_t>(kL2.integer(node, "mshrs"));
    p.demand_mshrs = static_cast<uint32_t>(kL2.integer(node, "demand_mshrs"));
    p.write_back_entries = static_cast<uint32_t>(kL2.integer(node, "write_back_entries"));
    p.replacement = kL2.string(node, "replacement");
    p.replacement_params = replacement_policy_registry().read_params(node, p.replacement);
    p.protect_prefetched = kL2.boolean(node, "protect_prefetched");
    if (const auto parts = node.optional_child("partitions")) {
        // Sizes or `rest`, not one type: read here, declared in kPartitions.
        // The declarations are in partition index order: weight, activation, general.
        for (std::size_t i = 0; i < kPartitions.params().size(); ++i) {
            const std::string& name = kPartitions.params()[i].key();
            if (parts->has(name) && parts->string(name) == "rest") {
                p.partition_rest[i] = true;
            } else {
                p.partition_bytes[i] = parts->size_bytes_or_zero(name, 0);
            }
        }
        if (!p.partitioned()) parts->report("weight", "at least one partition must be non-zero");
    }
    p.address_space_bytes = address_space_bytes;
    if (!node.problems_reported()) {
        for (const auto& [key, message] : p.validate()) node.report(key, message);
    }
    return p;
}

}  // namespace asim
