// The supernode's shared memory pool (DSM, DESIGN §5b) as a die sees it: the memory tiers behind
// its L2, the address windows they occupy in the supernode's one address space, the die's port
// into the pool, the H-JSD staging region and the hardware tiering. Read from the platform's
// `dsm:` section (models/memory/tiers/README.md lists every key).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/memory/tiers/pool_tier.h"

namespace asim {

class ConfigNode;

// The address convention shared by the platforms and `trace gen` (traces/FORMAT.md, "Memory
// tiers"): the die's own HBM from 0, each pool tier from its kind's default base
// (pool_tiers.cpp) unless the platform moves it.
struct TierParams {
    Tier tier = Tier::kHbm;  // the tier's index (tier_names())
    PoolTierKind kind;       // what the registered kind says (pool_tier.h)
    uint64_t base = 0;
    uint64_t capacity = 0;         // remote_hbm: per owner (the owners' HBM)
    int64_t read_latency_ps = 0;   // unloaded, request to last data, 512 B
    int64_t write_latency_ps = 0;  // unloaded, request to completion
    double read_bytes_per_s = 0;   // the device (shared by every die of the pool)
    double write_bytes_per_s = 0;
};

struct DsmPortParams {             // the die's way into the pool (UB): per direction
    double read_bytes_per_s = 0;   // data into the die
    double write_bytes_per_s = 0;  // data out of the die
    // In a supernode, remote_hbm traffic also crosses the network model (DsmPool::fabric), so it
    // shares the links with collectives; false: the port alone stands for the links.
    bool network = true;
};

struct DsmStagingParams {   // H-JSD second level: a region of local HBM
    uint64_t capacity = 0;  // 0: off (candidates larger than the L2 partition are dropped)
    uint64_t block = 64 * 1024;
    // Which prefetch candidates in the pool go to staging: those larger than the L2 weight
    // partition's credit (`oversize`), or every one (`all`: the L2 then holds only local weights).
    bool all = false;
};

struct DsmTieringParams {  // hardware tiering into local HBM by access counters
    bool enable = false;
    uint64_t block = 2ULL << 20;         // counted and migrated unit
    uint32_t promote_after = 4;          // demand reads of a block before it is promoted
    uint64_t capacity = 0;               // local HBM set aside for promoted blocks
    double migration_bytes_per_s = 1e9;  // budget; migrations beyond it are skipped
    bool share = false;  // migrations take their budget in turn with demand (else background)
};

// Node tiering (the documents' three temperatures: hot in HBM, warm in DDR, cold in persistent
// memory): blocks of a node's slow tier (`from`, e.g. pmem) that its dies read often are copied
// into a region of a faster node tier (`into`, e.g. host_ddr) by the node's own copy engine; reads
// of the block are then served there. Per node: counters, region, budget.
struct DsmWarmParams {
    bool enable = false;
    Tier from = Tier::kHbm;               // the slow tier (set when enabled; never kHbm then)
    Tier into = Tier::kHbm;               // the faster tier holding the warm copies
    uint64_t capacity = 0;                // bytes of `into` per node set aside for warm copies
    uint64_t block = 2ULL << 20;          // counted and copied unit
    uint32_t warm_after = 4;              // reads of a block (any die of the node) before it moves
    double migration_bytes_per_s = 13e9;  // the node copy engine's budget
};

// remote_hbm owners of a platform without a network unless dsm.owners says otherwise: the seed's
// 8-card node, whose other dies the port stands in for.
constexpr uint32_t kSingleDieOwners = 8;
constexpr uint32_t kMaxOwners = 65536;  // dsm.owners' bound (64 TiB + 64 Ki x 1 TiB < 2^64)

struct DsmParams {
    std::vector<TierParams> tiers;  // the pool's tiers present (never kHbm)
    DsmPortParams port;
    DsmStagingParams staging;
    DsmTieringParams tiering;
    DsmWarmParams warm;
    uint32_t owners = kSingleDieOwners;  // remote_hbm windows: a supernode's dies, or dsm.owners
    uint32_t dies_per_node = 8;          // dies sharing one node's host_ddr and pmem devices

    bool enabled() const { return !tiers.empty(); }
    const TierParams* find(Tier t) const;
    // The highest address any tier holds (the L2 accepts addresses below it).
    uint64_t address_top(uint64_t local_hbm_bytes) const;
    // Every problem, as (key, message) under `dsm.`.
    std::vector<std::pair<std::string, std::string>> validate(uint64_t local_hbm_bytes) const;
};

// "host_ddr, pmem": the node tiers (one device per node) node tiering may move blocks between.
std::string node_tier_list();

// A tier of the registered kind `name` at its kind's default base, with its kind's defaults
// (pmem's endurance_block and the like): for code and tests that build DsmParams without a
// platform.
TierParams make_tier(const std::string& name, uint64_t capacity, int64_t read_latency_ps,
                     int64_t write_latency_ps, double read_bytes_per_s, double write_bytes_per_s);

// Reads `dsm`. `network_dies`: the supernode's die count (the remote_hbm owners); without a
// network, dsm.owners (default kSingleDieOwners). `dies_per_node`: the dies of one node (whose
// CPUs hold one host_ddr and one pmem).
// `local_hbm_bytes_per_s`: the die's HBM bandwidth, the default of remote_hbm's stand-in device.
DsmParams parse_dsm_params(const ConfigNode& node, uint64_t local_hbm_bytes,
                           double local_hbm_bytes_per_s, std::optional<uint32_t> network_dies,
                           uint32_t dies_per_node);

}  // namespace asim
