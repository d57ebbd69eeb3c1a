// The `network:` section of a platform: topology, links, endpoints, collective defaults and
// faults (models/interconnect/network/README.md lists the keys). Parsed by network_config.cpp.
// It sits above the network/ and collectives/ folders because it holds both their parameters.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/interconnect/collectives/collective_params.h"
#include "models/interconnect/link/packet_path.h"
#include "models/interconnect/routing/routing.h"
#include "models/interconnect/topology/topology.h"

namespace asim {

class ConfigNode;

struct LinkFault {
    std::string link;   // "die3->die4"
    int64_t at_ps = 0;  // down from this time on
    std::string where;  // "file:line:col: network.faults[0].link", for messages
};

struct NetworkParams {
    TopologyParams topology;
    std::size_t max_paths = 8;  // equal-cost paths one transfer is sprayed over
    // The routing policy: a name of routing_registry() and its own keys (network.*).
    std::string routing = "minimal";
    ParamValues routing_params;
    RemoteAccessTiming endpoint;  // DMA start and remote memory access (figures links)
    CollectiveParams collectives;
    std::vector<LinkFault> faults;
};

// Throws ConfigError naming file, line and key.
NetworkParams parse_network_params(const ConfigNode& node);

// The routing policy `params` names.
std::unique_ptr<Routing> make_routing(const NetworkParams& params);

// The link ids the faults name; throws ConfigError (at the fault's key) for a link that does not
// exist.
std::vector<uint32_t> resolve_faults(const Topology& topology, const NetworkParams& params);

}  // namespace asim
