#include <algorithm>

#include "models/common/config.h"
#include "models/common/params.h"
#include "models/memory/tiers/dsm_params.h"

namespace asim {

TierParams make_tier(const std::string& name, uint64_t capacity, int64_t read_latency_ps,
                     int64_t write_latency_ps, double read_bytes_per_s, double write_bytes_per_s) {
    TierParams t;
    t.tier = tier_from_string(name).value();
    t.kind = default_kind(t.tier);
    t.base = t.kind.default_base;
    t.capacity = capacity;
    t.read_latency_ps = read_latency_ps;
    t.write_latency_ps = write_latency_ps;
    t.read_bytes_per_s = read_bytes_per_s;
    t.write_bytes_per_s = write_bytes_per_s;
    return t;
}

const TierParams* DsmParams::find(Tier t) const {
    for (const TierParams& p : tiers) {
        if (p.tier == t) return &p;
    }
    return nullptr;
}

namespace {
uint64_t window_bytes(const TierParams& t, uint32_t owners) {
    return t.kind.per_owner() ? (owners - 1) * kRemoteHbmOwnerStride + t.capacity : t.capacity;
}
}  // namespace

uint64_t DsmParams::address_top(uint64_t local_hbm_bytes) const {
    uint64_t top = local_hbm_bytes;
    for (const TierParams& t : tiers) top = std::max(top, t.base + window_bytes(t, owners));
    return top;
}

std::vector<std::pair<std::string, std::string>> DsmParams::validate(
    uint64_t local_hbm_bytes) const {
    std::vector<std::pair<std::string, std::string>> problems;
    // Windows: [0, local HBM) and each tier's; none may overlap.
    std::vector<std::pair<std::pair<uint64_t, uint64_t>, std::string>> windows = {
        {{0, local_hbm_bytes}, "hbm"}};
    for (const TierParams& t : tiers) {
        const std::string key = "tiers." + to_string(t.tier);
        if (t.kind.per_owner() && t.capacity > kRemoteHbmOwnerStride) {
            problems.emplace_back(key + ".capacity",
                                  "must be at most 1 TiB (the stride between owners' windows)");
        }
        const uint64_t size = window_bytes(t, owners);
        if (t.base > ~uint64_t{0} - size) {
            problems.emplace_back(key + ".base", "the window passes 2^64");
            continue;
        }
        for (const auto& [w, name] : windows) {
            if (t.base < w.second && w.first < t.base + size) {
                problems.emplace_back(key + ".base", "window [" + std::to_string(t.base) + ", +" +
                                                         std::to_string(size) + " B) overlaps " +
                                                         name + "'s");
            }
        }
        windows.push_back({{t.base, t.base + size}, to_string(t.tier)});
        if (!(t.read_bytes_per_s > 0) || !(t.write_bytes_per_s > 0)) {
            problems.emplace_back(key,
                                  "read_bandwidth and write_bandwidth must be greater than zero");
        }
    }
    if (enabled() && (!(port.read_bytes_per_s > 0) || !(port.write_bytes_per_s > 0))) {
        problems.emplace_back("port",
                              "read_bandwidth and write_bandwidth must be greater than zero");
    }
    const auto pow2 = [](uint64_t v) { return v != 0 && (v & (v - 1)) == 0; };
    if (!pow2(staging.block)) problems.emplace_back("staging.block", "must be a power of two");
    if (!pow2(tiering.block)) problems.emplace_back("tiering.block", "must be a power of two");
    if (staging.capacity != 0 && staging.capacity < staging.block) {
        problems.emplace_back("staging.capacity", "must hold at least one block");
    }
    if (tiering.enable &&
        (tiering.capacity < tiering.block || !(tiering.migration_bytes_per_s > 0))) {
        problems.emplace_back("tiering", "needs capacity >= block and a migration_bandwidth");
    }
    if (warm.enable) {
        const TierParams* from = find(warm.from);
        const TierParams* into = find(warm.into);
        const auto per_node = [](const TierParams* t) { return t && t->kind.per_node(); };
        if (!per_node(from) || !per_node(into) || warm.from == warm.into) {
            problems.emplace_back("warm", "from and into must be two node tiers (" +
                                              node_tier_list() + ") of the platform's dsm.tiers");
        } else if (warm.capacity < warm.block || warm.capacity > into->capacity) {
            problems.emplace_back("warm.capacity",
                                  "must hold at least one block and fit the into tier's capacity");
        }
        if (!pow2(warm.block)) problems.emplace_back("warm.block", "must be a power of two");
    }
    if (staging.capacity + (tiering.enable ? tiering.capacity : 0) > local_hbm_bytes / 2) {
        problems.emplace_back("staging.capacity",
                              "staging and tiering regions take more than half of local HBM");
    }
    return problems;
}

namespace {

const ParamTable kDsm({"dsm"}, "DSM pool",
                      {Param::integer("owners", "dies",
                                      "remote_hbm owner windows on a platform without a network: "
                                      "the supernode's dies that the port stands in for")
                           .dflt_from("a supernode: its dies (not settable); a single die: 8")
                           .range(2, kMaxOwners)});

// The keys every pool tier has; a kind's own keys (pmem's endurance_block) come from its
// registration (pool_tier.h).
const ParamTable kTier(
    {"dsm.tiers.<tier>"}, "DSM pool tier (the map key names a registered kind)",
    {Param::size("base", "start of the tier's window in the supernode's address space")
         .dflt_from("the kind's default window (models/memory/tiers/README.md)")
         .zero_allowed(),
     Param::size("capacity", "bytes of the tier (per owner for a per-owner kind)")
         .dflt_from("per-owner kinds: the die's HBM; required otherwise"),
     Param::time("read_latency", "load-to-use latency of a read, port to port"),
     Param::time("write_latency", "latency of a write").dflt_from("read_latency"),
     Param::byte_rate("read_bandwidth", "the tier's read bandwidth")
         .dflt_from("per-owner kinds: the die's HBM; required otherwise"),
     Param::byte_rate("write_bandwidth", "the tier's write bandwidth")
         .dflt_from("per-owner kinds: read_bandwidth; required otherwise")},
    &pool_tier_registry());

const ParamTable kPort({"dsm.port"}, "DSM port (the die's way into the pool, per direction)",
                       {Param::byte_rate("read_bandwidth", "read bandwidth of the port"),
                        Param::byte_rate("write_bandwidth", "write bandwidth of the port"),
                        Param::boolean("network",
                                       "in a supernode, remote_hbm traffic also crosses the "
                                       "network model's links (shared with collectives)")
                            .dflt("true")});

const ParamTable kStaging(
    {"dsm.staging"}, "DSM staging (prefetch into local HBM)",
    {Param::size("capacity", "local HBM set aside for staged blocks (0B: none)")
         .dflt("0B")
         .zero_allowed(),
     Param::size("block", "staged unit").dflt("64KiB"),
     Param::choice("use", {"oversize", "all"},
                   "which pool candidates are staged: larger than the L2 weight credit, or all")
         .dflt("oversize")});

const ParamTable kTiering(
    {"dsm.tiering"}, "DSM hardware tiering",
    {Param::boolean("enable", "promote hot pool blocks into local HBM").dflt("false"),
     Param::size("block", "counted and migrated unit").dflt("2MiB"),
     Param::integer("promote_after", "reads", "demand reads of a block before it is promoted")
         .dflt("4")
         .range(1, 1e9),
     Param::size("capacity", "local HBM set aside for promoted blocks").dflt("0B").zero_allowed(),
     Param::byte_rate("migration_bandwidth", "budget for migrations").dflt("1GB/s"),
     Param::choice("priority", {"background", "share"},
                   "migrations at the port: background (only while nothing else is booked, "
                   "demand first) or share (their budget reserved, in turn with demand)")
         .dflt("background")});

// The tiers node tiering may move blocks between: the kinds with one device per node.
std::vector<std::string> node_tier_names() {
    std::vector<std::string> names;
    for (const std::string& n : tier_names()) {
        if (n != "hbm" && default_kind(*tier_from_string(n)).per_node()) names.push_back(n);
    }
    return names;
}

const ParamTable kWarm(
    {"dsm.warm"}, "DSM node tiering (warm blocks of a slow node tier kept in a faster one)",
    {Param::boolean("enable", "copy often-read blocks of `from` into a region of `into`")
         .dflt("false"),
     Param::choice_of("from", node_tier_names, "the slow node tier whose warm blocks move")
         .dflt("pmem"),
     Param::choice_of("into", node_tier_names, "the faster node tier that holds them")
         .dflt("host_ddr"),
     Param::size("capacity", "bytes of `into` per node set aside for warm copies")
         .dflt("0B")
         .zero_allowed(),
     Param::size("block", "counted and copied unit").dflt("2MiB"),
     Param::integer("warm_after", "reads",
                    "reads of a block by the node's dies (demand and prefetch) before it moves")
         .dflt("4")
         .range(1, 1e9),
     Param::byte_rate("migration_bandwidth", "budget of the node's copy engine").dflt("13GB/s")});

}  // namespace

std::string node_tier_list() {
    std::string s;
    for (const std::string& n : node_tier_names()) s += (s.empty() ? "" : ", ") + n;
    return s;
}

DsmParams parse_dsm_params(const ConfigNode& node, uint64_t local_hbm_bytes,
                           double local_hbm_bytes_per_s, std::optional<uint32_t> network_dies,
                           uint32_t dies_per_node) {
    DsmParams p;
    p.dies_per_node = dies_per_node;
    if (network_dies) {
        if (node.has("owners")) {
            node.fail("owners", "a supernode's remote_hbm owners are its network's dies (" +
                                    std::to_string(*network_dies) +
                                    "); owners is for a single die");
        }
        p.owners = std::max<uint32_t>(1, *network_dies);
    } else {
        p.owners = static_cast<uint32_t>(kDsm.integer(node, "owners", kSingleDieOwners));
    }
    if (const auto tiers = node.optional_child("tiers")) {
        for (const std::string& name : tiers->keys()) {
            const auto tier = tier_from_string(name);
            if (!tier || *tier == Tier::kHbm) {
                tiers->fail(name, "unknown pool tier '" + name +
                                      "' (registered: " + pool_tier_registry().names_text() + ")");
            }
            const ConfigNode t = tiers->child(name);
            TierParams tp;
            tp.tier = *tier;
            tp.kind = *pool_tier_registry().make(name, pool_tier_registry().read_params(t, name));
            // A per-owner kind is the owners' HBM: as large and as fast as the die's by default
            // (a stand-in for the owner's HBM on a single die; a supernode uses the owner's model).
            const bool remote = tp.kind.per_owner();
            tp.base = kTier.size(t, "base", tp.kind.default_base);
            tp.capacity =
                remote ? kTier.size(t, "capacity", local_hbm_bytes) : kTier.size(t, "capacity");
            tp.read_latency_ps = kTier.time_ps(t, "read_latency");
            tp.write_latency_ps = kTier.time_ps(t, "write_latency", tp.read_latency_ps);
            tp.read_bytes_per_s = remote
                                      ? kTier.byte_rate(t, "read_bandwidth", local_hbm_bytes_per_s)
                                      : kTier.byte_rate(t, "read_bandwidth");
            tp.write_bytes_per_s = remote
                                       ? kTier.byte_rate(t, "write_bandwidth", tp.read_bytes_per_s)
                                       : kTier.byte_rate(t, "write_bandwidth");
            p.tiers.push_back(tp);
        }
    }
    if (const auto port = node.optional_child("port")) {
        p.port.read_bytes_per_s = kPort.byte_rate(*port, "read_bandwidth");
        p.port.write_bytes_per_s = kPort.byte_rate(*port, "write_bandwidth");
        p.port.network = kPort.boolean(*port, "network");
    }
    if (const auto s = node.optional_child("staging")) {
        p.staging.capacity = kStaging.size(*s, "capacity");
        p.staging.block = kStaging.size(*s, "block");
        p.staging.all = kStaging.string(*s, "use") == "all";
    }
    if (const auto t = node.optional_child("tiering")) {
        p.tiering.enable = kTiering.boolean(*t, "enable");
        p.tiering.block = kTiering.size(*t, "block");
        p.tiering.promote_after = static_cast<uint32_t>(kTiering.integer(*t, "promote_after"));
        p.tiering.capacity = kTiering.size(*t, "capacity");
        p.tiering.migration_bytes_per_s = kTiering.byte_rate(*t, "migration_bandwidth");
        p.tiering.share = kTiering.string(*t, "priority") == "share";
    }
    if (const auto w = node.optional_child("warm")) {
        p.warm.enable = kWarm.boolean(*w, "enable");
        p.warm.from = tier_from_string(kWarm.string(*w, "from")).value_or(Tier::kHbm);
        p.warm.into = tier_from_string(kWarm.string(*w, "into")).value_or(Tier::kHbm);
        p.warm.capacity = kWarm.size(*w, "capacity");
        p.warm.block = kWarm.size(*w, "block");
        p.warm.warm_after = static_cast<uint32_t>(kWarm.integer(*w, "warm_after"));
        p.warm.migration_bytes_per_s = kWarm.byte_rate(*w, "migration_bandwidth");
    }
    if (!node.problems_reported()) {
        for (const auto& [key, message] : p.validate(local_hbm_bytes)) {
            node.report(key.substr(0, key.find('.')), key + ": " + message);
        }
    }
    return p;
}

}  // namespace asim
