#include "models/chip/die/die.h"
#include "models/common/config.h"

namespace asim {

DieParams parse_die_params(const ConfigNode& die) {
    DieParams p;
    p.clock_hz = static_cast<uint64_t>(die.frequency_hz("clock"));
    p.ai_cores = static_cast<uint32_t>(die.integer("ai_cores", Range{1, 4096}));
    p.core = parse_aicore_params(die.child("aicore"));
    p.hbm = parse_hbm_params(die.child("hbm"));
    if (const auto noc = die.optional_child("noc")) p.noc = parse_noc_params(*noc);
    p.l2 = parse_l2_params(die.child("l2"), p.hbm.capacity_bytes());
    std::vector<std::pair<std::string, uint64_t>> partitions;
    for (const auto& part : p.l2.partition_layout()) partitions.emplace_back(part.name, part.ways * p.l2.way_bytes());
    p.hjsd = parse_hjsd_params(die.child("hjsd"), partitions);
    return p;
}

}  // namespace asim
