#include <algorithm>

#include "models/common/config.h"
#include "models/memory/tiers/dsm_params.h"

namespace asim {

const char* to_string(Tier t) { return kTierNames[static_cast<std::size_t>(t)]; }

std::optional<Tier> tier_from_string(const std::string& name) {
    for (std::size_t i = 0; i < kTierCount; ++i) {
        if (name == kTierNames[i]) return static_cast<Tier>(i);
    }
    return std::nullopt;
}

std::string tier_name_list() {
    std::string s;
    for (const char* n : kTierNames) s += (s.empty() ? "" : ", ") + std::string(n);
    return s;
}

const TierParams* DsmParams::find(Tier t) const {
    for (const TierParams& p : tiers) {
        if (p.tier == t) return &p;
    }
    return nullptr;
}

namespace {
uint64_t window_bytes(const TierParams& t, uint32_t owners) {
    return t.tier == Tier::kRemoteHbm ? (owners - 1) * kRemoteHbmOwnerStride + t.capacity
                                      : t.capacity;
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
        const std::string key = std::string("tiers.") + to_string(t.tier);
        if (t.tier == Tier::kRemoteHbm && t.capacity > kRemoteHbmOwnerStride) {
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
    if (staging.capacity + (tiering.enable ? tiering.capacity : 0) > local_hbm_bytes / 2) {
        problems.emplace_back("staging.capacity",
                              "staging and tiering regions take more than half of local HBM");
    }
    return problems;
}

DsmParams parse_dsm_params(const ConfigNode& node, uint64_t local_hbm_bytes, double local_hbm_bytes_per_s,
                           uint32_t owners,
                           uint32_t dies_per_node) {
    DsmParams p;
    p.dies_per_node = dies_per_node;
    p.owners = owners;
    if (const auto tiers = node.optional_child("tiers")) {
        for (const std::string& name : tiers->keys()) {
            const auto tier = tier_from_string(name);
            if (!tier || *tier == Tier::kHbm) {
                tiers->fail(name, "unknown pool tier '" + name +
                                      "' (the pool's tiers: remote_hbm, host_ddr, pmem)");
            }
            const ConfigNode t = tiers->child(name);
            TierParams tp;
            tp.tier = *tier;
            const auto i = static_cast<std::size_t>(*tier);
            tp.base = t.has("base") ? t.size_bytes_or_zero("base", 0) : kDefaultTierBase[i];
            // remote_hbm is the owners' HBM: as large as the die's by default.
            tp.capacity = *tier == Tier::kRemoteHbm ? t.size_bytes("capacity", local_hbm_bytes)
                                                    : t.size_bytes("capacity");
            tp.read_latency_ps = t.time_ps("read_latency");
            tp.write_latency_ps = t.time_ps("write_latency", tp.read_latency_ps);
            if (*tier == Tier::kRemoteHbm) {
                // A stand-in for the owner's HBM on a single die (by default a die's HBM like this
                // one's); a supernode uses the owner's
                // model.
                tp.read_bytes_per_s = t.byte_rate("read_bandwidth", local_hbm_bytes_per_s);
                tp.write_bytes_per_s = t.byte_rate("write_bandwidth", tp.read_bytes_per_s);
            } else {
                tp.read_bytes_per_s = t.byte_rate("read_bandwidth");
                tp.write_bytes_per_s = t.byte_rate("write_bandwidth");
            }
            tp.endurance_block = t.size_bytes_or_zero("endurance_block", 0);
            p.tiers.push_back(tp);
        }
    }
    if (const auto port = node.optional_child("port")) {
        p.port.read_bytes_per_s = port->byte_rate("read_bandwidth");
        p.port.write_bytes_per_s = port->byte_rate("write_bandwidth");
    }
    if (const auto s = node.optional_child("staging")) {
        p.staging.capacity = s->size_bytes_or_zero("capacity", 0);
        p.staging.block = s->size_bytes("block", p.staging.block);
        p.staging.all = s->choice("use", {"oversize", "all"}, "oversize") == "all";
    }
    if (const auto t = node.optional_child("tiering")) {
        p.tiering.enable = t->boolean("enable", false);
        p.tiering.block = t->size_bytes("block", p.tiering.block);
        p.tiering.promote_after =
            static_cast<uint32_t>(t->integer("promote_after", 4, Range{1, 1e9}));
        p.tiering.capacity = t->size_bytes_or_zero("capacity", 0);
        p.tiering.migration_bytes_per_s = t->byte_rate("migration_bandwidth", 1e9);
    }
    for (const auto& [key, message] : p.validate(local_hbm_bytes))
        node.fail(key.substr(0, key.find('.')), key + ": " + message);
    return p;
}

}  // namespace asim
