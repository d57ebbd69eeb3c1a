#include "models/chip/hjsd/hjsd.h"
#include "models/common/config.h"
#include "models/common/units.h"

namespace asim {

HjsdParams parse_hjsd_params(const ConfigNode& node,
                             const std::vector<std::pair<std::string, uint64_t>>& partitions) {
    HjsdParams p;
    p.registers.enable = node.boolean("enable", true);
    p.registers.prefetch_depth = static_cast<uint32_t>(node.integer("prefetch_depth", 5, Range{0, 1 << 20}));
    p.registers.chunk_bytes = node.size_bytes("chunk", p.registers.chunk_bytes);
    p.queue_depth = static_cast<uint32_t>(node.integer("queue_depth", p.queue_depth, Range{1, 1024}));
    p.sdma_outstanding = static_cast<uint32_t>(node.integer("sdma_outstanding", p.sdma_outstanding, Range{1, 1024}));
    p.impl = node.choice("impl", {"tlm", "rtl"}, "tlm");
    if (const auto throttle = node.optional_child("throttle")) {
        p.throttle_threshold = throttle->real("threshold", p.throttle_threshold, Range{1e-6, 1e6});
        p.throttle_window_ps = throttle->time_ps("window", p.throttle_window_ps);
    }
    const auto credits = node.optional_child("credits");
    for (std::size_t i = 0; i < partitions.size() && i < hjsd::kMaxPartitions; ++i) {
        const auto& [name, bytes] = partitions[i];
        uint64_t credit = bytes;
        if (credits) credit = credits->size_bytes_or_zero(name, bytes);
        if (credit > bytes) {
            credits->fail(name, "credit " + units::format_bytes(credit) + " is larger than the L2 " + name +
                                    " partition (" + units::format_bytes(bytes) + ")");
        }
        p.registers.credit_limit[i] = credit;
    }
    for (const auto& [key, message] : p.validate()) node.fail(key, message);
    return p;
}

}  // namespace asim
