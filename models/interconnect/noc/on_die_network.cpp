#include "models/interconnect/noc/on_die_network.h"

#include <algorithm>

namespace asim {

namespace {
Picoseconds kernel_now() { return ClockDomain::to_ps(sc_core::sc_time_stamp()); }
}  // namespace

OnDieNetwork::OnDieNetwork(sc_core::sc_module_name name, const NocParams& params,
                           const NocPlacement& placement, const ClockDomain& clock,
                           StatsRegistry& stats)
    : sc_module(name),
      from_engines("from_engines"),
      to_l2("to_l2"),
      m_link_wait(StatsGroup(stats, *this)
                      .counter("link_wait_ps", "time requests waited for on-die mesh links, summed",
                               "ps")) {
    const NocRoutes routes(params, placement.cores, placement.l2_slices, placement.hbm_controllers);
    auto one_way = [&](double hops) { return hop_latency(params, clock, hops); };
    const bool links = params.link_bytes_per_cycle > 0 && routes.link_count() > 0;
    if (links)
        m_links.assign(routes.link_count(), BandwidthServer(&clock, params.link_bytes_per_cycle));
    m_slice_to_hbm = one_way(routes.mean_hops_slice_to_hbm());
    for (const uint32_t core : placement.port_core) {
        const uint32_t router =
            core == NocPlacement::kCentre ? routes.routers() / 2 : routes.core_router(core);
        Port& port = m_ports.emplace_back();
        std::vector<Picoseconds> to_slices;
        for (uint32_t s = 0; s < placement.l2_slices; ++s)
            to_slices.push_back(one_way(routes.hops(router, routes.slice_router(s))));
        port.route = slice_distances(std::move(to_slices));
        if (links) {
            port.read_links = routes.link_shares(router, false);
            port.write_links = routes.link_shares(router, true);
        }
    }
    from_engines.register_b_transport(this, &OnDieNetwork::b_transport_tagged);
}

Picoseconds OnDieNetwork::hop_latency(const NocParams& params, const ClockDomain& clock,
                                      double hops) {
    return clock.cycles_to_ps(static_cast<Cycles>(hops * params.hop_cycles + 0.5));
}

SliceDistances OnDieNetwork::slice_distances(std::vector<Picoseconds> one_way) {
    SliceDistances d;
    Picoseconds sum = 0;
    for (const Picoseconds t : one_way) sum += t;
    d.mean = one_way.empty() ? 0 : sum / one_way.size();
    d.one_way = std::move(one_way);
    return d;
}

Picoseconds OnDieNetwork::serve(tlm::tlm_generic_payload& p, sc_core::sc_time& delay, int index) {
    TransactionInfo* info = info_of(p);
    if (!info) {
        p.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        return kNotServed;
    }
    const Port& port = m_ports[static_cast<std::size_t>(index)];
    const Picoseconds issued = kernel_now() + ClockDomain::to_ps(delay);
    info->noc_route = &port.route;
    to_l2->b_transport(p, delay);
    info->noc_route = nullptr;
    if (!p.is_response_ok()) return kNotServed;  // the L2's error response stands
    const Picoseconds done = kernel_now() + ClockDomain::to_ps(delay);
    // A prefetch returns no data: it loads no links.
    if (m_links.empty() || info->stream == StreamClass::kPrefetch) return done;
    const Picoseconds crossed =
        links_done(port, p.is_write(), p.get_data_length(), issued) + port.route.mean;
    if (crossed <= done) return done;
    m_link_wait += crossed - done;
    return crossed;
}

Picoseconds OnDieNetwork::links_done(const Port& port, bool is_write, uint64_t bytes,
                                     Picoseconds issued) {
    Picoseconds done = 0;
    for (const LinkShare& l : is_write ? port.write_links : port.read_links) {
        const auto share = static_cast<uint64_t>(l.fraction * static_cast<double>(bytes) + 0.5);
        if (share) done = std::max(done, m_links[l.link].reserve(issued, share).end);
    }
    return done;
}

}  // namespace asim
