// The built-in kinds of pool tier (pool_tier.h) and the tier names derived from the registry.
// Default windows follow the address convention of traces/FORMAT.md ("Memory tiers"): host_ddr
// from 16 TiB, pmem from 32 TiB, remote_hbm last, from 64 TiB, since it grows with the supernode
// (15,488 owners end below 2^54).
#include "models/memory/tiers/pool_tier.h"

#include <memory>

namespace asim {

Registry<PoolTierKind>& pool_tier_registry() {
    static Registry<PoolTierKind> registry("pool tier");
    return registry;
}

namespace {

std::unique_ptr<PoolTierKind> kind(PoolTierKind::Device device, uint64_t base,
                                   uint64_t endurance_block = 0) {
    return std::make_unique<PoolTierKind>(PoolTierKind{device, base, endurance_block});
}

}  // namespace

ASIM_REGISTER(pool_tier_registry(), remote_hbm,
              "another die's HBM over UB / the backplane: a 1 TiB window per owner die from 64 "
              "TiB; served by the owner's HBM model (a stand-in device on a single die)",
              {},
              [](const ParamValues&) { return kind(PoolTierKind::Device::kOwnerHbm, 64 * kTiB); });

ASIM_REGISTER(pool_tier_registry(), host_ddr,
              "the node's CPU DDR pooled over UB: one device per node, window from 16 TiB", {},
              [](const ParamValues&) { return kind(PoolTierKind::Device::kPerNode, 16 * kTiB); });

ASIM_REGISTER(
    pool_tier_registry(), pmem,
    "persistent memory behind the node's CPUs: one device per node, window from 32 TiB, writes "
    "counted per endurance block",
    {Param::size("endurance_block", "block whose writes are counted (0B: not counted)")
         .dflt("0B")
         .zero_allowed()},
    [](const ParamValues& v) {
        return kind(PoolTierKind::Device::kPerNode, 32 * kTiB,
                    static_cast<uint64_t>(v.integer("endurance_block")));
    });

const std::vector<std::string>& tier_names() {
    // Asked after start-up, when every kind has registered (test binaries add their own).
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n = {"hbm"};
        for (const std::string& kind : pool_tier_registry().names()) n.push_back(kind);
        return n;
    }();
    return names;
}

const std::string& to_string(Tier t) { return tier_names().at(static_cast<std::size_t>(t)); }

std::optional<Tier> tier_from_string(const std::string& name) {
    const std::vector<std::string>& names = tier_names();
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (names[i] == name) return static_cast<Tier>(i);
    }
    return std::nullopt;
}

std::string tier_name_list() {
    std::string s;
    for (const std::string& n : tier_names()) s += (s.empty() ? "" : ", ") + n;
    return s;
}

std::size_t tier_count() { return tier_names().size(); }

PoolTierKind default_kind(Tier t) { return *pool_tier_registry().make(to_string(t), {}); }

}  // namespace asim
