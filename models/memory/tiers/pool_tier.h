// Kinds of pool tier, chosen by name (registry.h): a platform's `dsm.tiers.<name>` names a
// registered kind, and `trace gen --weights <name>` places tensors in it. A kind says where its
// device is, where its window starts by default and what it counts; the timing every kind shares
// (the die's pool port, the device's bandwidth servers, the tier's latency) is the router's
// (tier_router.h). The built-in kinds (pool_tiers.cpp): remote_hbm, host_ddr, pmem. A new kind is
// one file with an ASIM_REGISTER(pool_tier_registry(), ...) and a line in the CMakeLists.txt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/common/registry.h"

namespace asim {

// A tier's index: 0 is the die's own HBM, then the registered kinds by name (tier_names()).
enum class Tier : uint32_t { kHbm = 0 };

constexpr uint64_t kTiB = uint64_t{1} << 40;
// A per-owner tier's window: owner k at base + k x 1 TiB.
constexpr uint64_t kRemoteHbmOwnerStride = kTiB;

struct PoolTierKind {
    enum class Device {
        kPerNode,   // one device per node, shared by its dies (the node's CPUs' DDR, say)
        kPerPool,   // one device for the whole pool
        kOwnerHbm,  // each owner die's HBM model, a window per owner (a stand-in on a single die)
    };
    Device device = Device::kPerNode;
    uint64_t default_base = 0;     // where the window starts unless `base` says otherwise
    uint64_t endurance_block = 0;  // writes counted per block of this size (0: not counted)

    bool per_owner() const { return device == Device::kOwnerHbm; }
    bool per_node() const { return device == Device::kPerNode; }
};

Registry<PoolTierKind>& pool_tier_registry();

// Every tier's name by index: "hbm", then the registered kinds in name order. The one list.
const std::vector<std::string>& tier_names();
const std::string& to_string(Tier t);
std::optional<Tier> tier_from_string(const std::string& name);
// "hbm, host_ddr, pmem, remote_hbm", for messages and --help.
std::string tier_name_list();
std::size_t tier_count();
// The kind of a pool tier with its declared defaults (endurance_block and the like); the tier
// must not be kHbm.
PoolTierKind default_kind(Tier t);

}  // namespace asim
