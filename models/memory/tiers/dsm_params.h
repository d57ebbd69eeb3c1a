// The supernode's shared memory pool (DSM, DESIGN §5b) as a die sees it: the memory tiers behind
// its L2, the address windows they occupy in the supernode's one address space, the die's port
// into the pool, the H-JSD staging region and the hardware tiering. Read from the platform's
// `dsm:` section (models/memory/tiers/README.md lists every key).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace asim {

class ConfigNode;

// The tiers, in the order of their index (0 is the die's own HBM). The one list of names.
enum class Tier : uint32_t { kHbm = 0, kRemoteHbm = 1, kHostDdr = 2, kPmem = 3 };
constexpr std::size_t kTierCount = 4;
constexpr std::array<const char*, kTierCount> kTierNames = {"hbm", "remote_hbm", "host_ddr",
                                                            "pmem"};
const char* to_string(Tier t);
std::optional<Tier> tier_from_string(const std::string& name);
// "hbm, remote_hbm, host_ddr, pmem", for messages and --help.
std::string tier_name_list();

// The address convention shared by the platforms and `trace gen` (traces/FORMAT.md, "Memory
// tiers"): the die's own HBM from 0; host_ddr from 16 TiB, pmem from 32 TiB; remote_hbm last,
// from 64 TiB, since it grows with the supernode: owner k (die k's HBM seen from the others)
// starts at remote_hbm's base + k x 1 TiB (15,488 dies end below 2^54).
constexpr uint64_t kTiB = uint64_t{1} << 40;
constexpr uint64_t kDefaultTierBase[kTierCount] = {0, 64 * kTiB, 16 * kTiB, 32 * kTiB};
constexpr uint64_t kRemoteHbmOwnerStride = kTiB;

struct TierParams {
    Tier tier = Tier::kHostDdr;
    uint64_t base = 0;
    uint64_t capacity = 0;         // remote_hbm: per owner (the owners' HBM)
    int64_t read_latency_ps = 0;   // unloaded, request to last data, 512 B
    int64_t write_latency_ps = 0;  // unloaded, request to completion
    double read_bytes_per_s = 0;   // the device (shared by every die of the pool)
    double write_bytes_per_s = 0;
    uint64_t endurance_block = 0;  // pmem: block whose writes are counted (0: not counted)
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
    uint64_t block = 2ULL << 20;       // counted and migrated unit
    uint32_t promote_after = 4;        // demand reads of a block before it is promoted
    uint64_t capacity = 0;             // local HBM set aside for promoted blocks
    double migration_bytes_per_s = 0;  // budget; migrations beyond it are skipped
};

struct DsmParams {
    std::vector<TierParams> tiers;  // the pool's tiers present (never kHbm)
    DsmPortParams port;
    DsmStagingParams staging;
    DsmTieringParams tiering;
    uint32_t owners = 1;  // remote_hbm windows: the supernode's dies (dsm.owners on a single die)
    uint32_t dies_per_node = 8;  // dies sharing one node's host_ddr and pmem devices

    bool enabled() const { return !tiers.empty(); }
    const TierParams* find(Tier t) const;
    // The highest address any tier holds (the L2 accepts addresses below it).
    uint64_t address_top(uint64_t local_hbm_bytes) const;
    // Every problem, as (key, message) under `dsm.`.
    std::vector<std::pair<std::string, std::string>> validate(uint64_t local_hbm_bytes) const;
};

// remote_hbm owners of a platform without a network unless dsm.owners says otherwise: the seed's
// 8-card node, whose other dies the port stands in for.
constexpr uint32_t kSingleDieOwners = 8;
constexpr uint32_t kMaxOwners = 65536;  // dsm.owners' bound (64 TiB + 64 Ki x 1 TiB < 2^64)

// Reads `dsm`. `network_dies`: the supernode's die count (the remote_hbm owners); without a
// network, dsm.owners (default kSingleDieOwners). `dies_per_node`: the dies of one node (whose
// CPUs hold one host_ddr and one pmem).
// `local_hbm_bytes_per_s`: the die's HBM bandwidth, the default of remote_hbm's stand-in device.
DsmParams parse_dsm_params(const ConfigNode& node, uint64_t local_hbm_bytes,
                           double local_hbm_bytes_per_s, std::optional<uint32_t> network_dies,
                           uint32_t dies_per_node);

}  // namespace asim
