// `ecmp_hash`: each pair of endpoints uses one of its equal-cost shortest paths, chosen by a hash
// of the pair, as a switch's ECMP hashing pins a flow (a RoCE queue pair) to one path. Transfers
// of different pairs spread over the paths; one transfer does not (network.max_paths is not used),
// so two pairs that hash to the same plane share it while another idles.
#include "models/interconnect/routing/routing.h"

namespace asim {
namespace {

// The candidates a pair's hash chooses among: more than any preset's planes or spines per hop.
constexpr std::size_t kCandidates = 64;

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

class EcmpHash final : public Routing {
public:
    std::vector<Path> routes(const Topology& topology, uint32_t src, uint32_t dst, std::size_t,
                             const std::vector<char>& down) const override {
        std::vector<Path> paths = topology.routes(src, dst, kCandidates, down);
        if (paths.size() <= 1) return paths;
        const std::size_t pick = mix((uint64_t{src} << 32) | dst) % paths.size();
        return {std::move(paths[pick])};
    }
};

}  // namespace

ASIM_REGISTER(routing_registry(), ecmp_hash,
              "one equal-cost shortest path per endpoint pair, chosen by a hash of the pair (ECMP "
              "flow hashing; no spraying)",
              {}, [](const ParamValues&) { return std::make_unique<EcmpHash>(); });

}  // namespace asim
