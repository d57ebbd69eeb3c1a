// Routing: how a transfer between two dies chooses its paths through the supernode's graph
// (`network.routing`), a part chosen by name from routing_registry(). The topology answers the
// equal-cost shortest paths (Topology::routes: structured where the shape allows, a breadth-first
// search over live links otherwise); a routing policy decides which of them a transfer uses.
// Adding one is a file that registers itself (ASIM_REGISTER) plus one line in
// models/interconnect/CMakeLists.txt (README.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/common/registry.h"
#include "models/interconnect/topology/topology.h"

namespace asim {

class Routing {
public:
    virtual ~Routing() = default;
    // Paths (link ids) from endpoint `src` to endpoint `dst` over live links (down[link] != 0 is
    // down; `down` may be empty), at most `max_paths` (at least 1); empty when none exists. A
    // transfer spreads its bytes over the paths returned.
    virtual std::vector<Path> routes(const Topology& topology, uint32_t src, uint32_t dst,
                                     std::size_t max_paths,
                                     const std::vector<char>& down) const = 0;
};

using RoutingRegistry = Registry<Routing>;
RoutingRegistry& routing_registry();

// The policy registered as `name` with its parameter values (defaults filled in). Throws
// InputError for a name that is not registered.
std::unique_ptr<Routing> make_routing(const std::string& name, const ParamValues& values = {});

}  // namespace asim
