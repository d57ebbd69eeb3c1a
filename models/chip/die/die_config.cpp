#include "models/chip/die/die.h"
#include "models/common/config.h"
#include "models/common/params.h"

namespace asim {

namespace {
const ParamTable kDie({"die"}, "Die",
                      {Param::frequency("clock", "clock of the AI cores"),
                       Param::integer("ai_cores", "",
                                      "AI cores (one Cube and its vector cores each)")
                           .range(1, 4096)});
}  // namespace

DieParams parse_die_params(const ConfigNode& die) {
    DieParams p;
    p.clock_hz = static_cast<uint64_t>(kDie.frequency_hz(die, "clock"));
    p.ai_cores = static_cast<uint32_t>(kDie.integer(die, "ai_cores"));
    p.core = parse_aicore_params(die.child("aicore"));
    p.hbm = parse_hbm_params(die.child("hbm"));
    if (const auto noc = die.optional_child("noc")) p.noc = parse_noc_params(*noc);
    p.l2 = parse_l2_params(die.child("l2"), p.hbm.capacity_bytes());
    // The H-JSD's credit pools are the L2's partitions (none while the L2 has problems: its
    // stand-in values have no layout).
    std::vector<std::pair<std::string, uint64_t>> partitions;
    if (!die.problems_reported()) {
        for (const auto& part : p.l2.partition_layout())
            partitions.emplace_back(part.name, part.ways * p.l2.way_bytes());
    }
    p.hjsd = parse_hjsd_params(die.child("hjsd"), partitions);
    return p;
}

}  // namespace asim
