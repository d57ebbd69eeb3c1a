// The on-die network between the AI cores, the L2 slices and the HBM controllers, as hop
// latencies on a chosen topology.
//
// Timing model. Endpoints sit at routers; a request crosses hops(src, dst) routers each way, at
// `hop_cycles` per hop. `crossbar`: every core is one hop from every slice and every slice one
// hop from the HBM controllers. `mesh`: a `mesh_columns`-wide 2-D mesh with dimension-order (XY)
// routing; core c sits at router c (row-major), the L2 slices are spread evenly over the routers,
// and the HBM controllers alternate between the left and right edges (where the PHYs are).
// The L2 adds a line's one-way latency from its requester to its slice before the slice serves it,
// and again to the data coming back; fills and write-backs cross the slice-to-controller distance.
//
// Mesh links (optional, `link_bytes_per_cycle`): every directed link between neighbouring
// routers is a bandwidth server. The L2 interleaves lines over its slices by a hash, so a request
// of B bytes from a port sends B / slices to each slice: each link on the XY route to slice s
// carries that share. A port's `link_shares` add those shares up per link (data from the slices
// for reads, to them for writes); each request reserves its share of every link it loads and
// completes no sooner than its most delayed link. Without the key, bandwidth is carried by the
// endpoints only (each engine's port, each L2 slice, each HBM channel), which is right for a
// crossbar and for a mesh whose links are wider than the ports.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace asim {

class ConfigNode;

struct NocParams {
    enum class Topology { kCrossbar, kMesh };
    Topology topology = Topology::kCrossbar;
    uint32_t mesh_columns = 8;  // mesh only
    uint32_t hop_cycles = 1;    // per router crossed, in core clock cycles
    double link_bytes_per_cycle =
        0;  // mesh only: each directed link's bandwidth; 0: links not modelled

    std::vector<std::pair<std::string, std::string>> validate() const;
};

// Reads a `die.noc` map: `topology: crossbar | mesh`, `mesh_columns`, `hop_cycles`,
// `link_bytes_per_cycle` (optional, mesh).
NocParams parse_noc_params(const ConfigNode& node);

// The share of a port's L2 traffic one directed mesh link carries.
struct LinkShare {
    uint32_t link;
    double fraction;  // of the request's bytes
};

// Router placement and hop counts for one die.
class NocRoutes {
public:
    NocRoutes(const NocParams& params, uint32_t cores, uint32_t l2_slices,
              uint32_t hbm_controllers);

    uint32_t routers() const { return m_routers; }
    uint32_t core_router(uint32_t core) const { return core % m_routers; }
    uint32_t slice_router(uint32_t slice) const { return m_slice_router[slice]; }
    uint32_t hops(uint32_t from_router, uint32_t to_router) const;
    uint32_t hops_core_to_slice(uint32_t core, uint32_t slice) const {
        return hops(core_router(core), slice_router(slice));
    }
    // Mean over slices of the distance to the nearest HBM controller.
    double mean_hops_slice_to_hbm() const;
    // Per slice, the mean over cores of the hops to it: the view of an average core.
    std::vector<double> mean_hops_to_slices() const;
    // Mean over (core, slice) pairs.
    double mean_hops_core_to_slice() const;

    // Directed links between neighbouring routers (mesh; none on a crossbar).
    uint32_t link_count() const { return m_links; }
    // The links a request spread evenly over the slices loads, with its share of each: data
    // from `router` to every slice (`to_slices`) or from every slice to `router`, XY routed.
    std::vector<LinkShare> link_shares(uint32_t router, bool to_slices) const;

private:
    NocParams m_params;
    uint32_t m_routers = 1;
    uint32_t m_columns = 1;
    std::vector<uint32_t> m_slice_router;
    std::vector<uint32_t> m_hbm_router;
    uint32_t m_cores = 0;
    uint32_t m_links = 0;
    // Appends the links of the XY route from router a to router b to `out`.
    void route_links(uint32_t a, uint32_t b, std::vector<uint32_t>& out) const;
};

}  // namespace asim
