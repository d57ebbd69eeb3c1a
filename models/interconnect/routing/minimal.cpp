// `minimal`: every transfer spreads over up to `max_paths` equal-cost shortest paths (planes of a
// switch or Clos network, ECMP over spines, both ring directions when they are equally long):
// packet spraying, the UB / HCCS way of using every plane.
#include "models/interconnect/routing/routing.h"

namespace asim {
namespace {

class Minimal final : public Routing {
public:
    std::vector<Path> routes(const Topology& topology, uint32_t src, uint32_t dst,
                             std::size_t max_paths, const std::vector<char>& down) const override {
        return topology.routes(src, dst, max_paths, down);
    }
};

}  // namespace

ASIM_REGISTER(routing_registry(), minimal,
              "equal-cost shortest paths, a transfer sprayed over up to network.max_paths of them",
              {}, [](const ParamValues&) { return std::make_unique<Minimal>(); });

}  // namespace asim
