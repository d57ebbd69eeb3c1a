#include "platforms/platform.h"

#include <algorithm>

#include "models/common/errors.h"
#include "models/interconnect/topology/topology.h"

namespace asim {

EmbeddedPresetResolver platform_resolver() {
    std::vector<EmbeddedYaml> presets;
    for (const auto& p : builtin_presets()) presets.push_back({p.name, p.display_name, p.yaml});
    return EmbeddedPresetResolver("platform", std::move(presets));
}

Platform load_platform(const std::string& name_or_path, const std::vector<std::string>& overrides) {
    Platform p;
    p.config = Config::load(name_or_path, platform_resolver());
    for (const auto& o : overrides) p.config.apply_override(o);
    // Every bad value of a section is named at once (params.h); a section's problems are thrown
    // before anything is built from its values. A reader that stops at once (a missing map, say)
    // adds its problem to those already found.
    p.config.collect_problems(true);
    const ConfigNode root = p.config.root();
    auto section = [&](const auto& parse) {
        try {
            parse();
        } catch (const ConfigError& e) {
            if (p.config.problems().empty()) throw;
            root.report(e);
            p.config.throw_problems();
        }
    };
    section([&] {
        p.name = root.string("name");
        p.description = root.string("description", "");
        p.die = parse_die_params(root.child("die"));
    });
    const auto net = root.optional_child("network");
    if (net) section([&] { p.network = parse_network_params(*net); });
    const auto dsm = root.optional_child("dsm");
    if (dsm) {
        section([&] {
            // One address space across the supernode: a window of remote_hbm per die (on a
            // single die, dsm.owners: the dies a port stands in for).
            std::optional<uint32_t> dies;
            if (p.network) dies = p.network->topology.dies;
            const uint64_t hbm = p.die.hbm.capacity_bytes();
            const uint32_t per_node = p.network ? p.network->topology.dies_per_node : 8;
            p.die.dsm =
                parse_dsm_params(*dsm, hbm, p.die.hbm.bandwidth_bytes_per_s(), dies, per_node);
        });
    }
    // Every section read: their problems at once, before anything is built from the values.
    p.config.throw_problems();
    if (net) {
        // Build the graph once so a topology that does not connect, or a fault on a link that
        // does not exist, is bad input here, before anything simulates.
        const Topology topology(p.network->topology);
        resolve_faults(topology, *p.network);
    }
    if (dsm) {
        const uint64_t hbm = p.die.hbm.capacity_bytes();
        p.die.l2.address_space_bytes = p.die.dsm.address_top(hbm);
        if (p.die.dsm.staging.capacity > 0) {
            const std::size_t staging_pool = p.die.l2.partition_layout().size();
            if (staging_pool >= hjsd::kMaxPartitions) {
                dsm->fail("staging",
                          "the H-JSD has no credit pool left for staging (the L2 uses all " +
                              std::to_string(hjsd::kMaxPartitions) + ")");
            }
            p.die.hjsd.registers.credit_limit[staging_pool] = p.die.dsm.staging.capacity;
        }
    }
    p.config.collect_problems(false);
    p.config.check_unused();
    return p;
}

}  // namespace asim
