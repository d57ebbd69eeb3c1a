#include "models/interconnect/network/flow_network.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/common/errors.h"

namespace asim {

FlowNetwork::FlowNetwork(const Topology& topology, std::size_t max_paths,
                         bool bundle_parallel_links)
    : FlowNetwork(topology, max_paths, make_routing("minimal"), bundle_parallel_links) {}

FlowNetwork::FlowNetwork(const Topology& topology, std::size_t max_paths,
                         std::unique_ptr<const Routing> routing, bool bundle_parallel_links)
    : m_topology(topology),
      m_routing(std::move(routing)),
      m_max_paths(std::max<std::size_t>(max_paths, 1)),
      m_bundle(bundle_parallel_links && topology.bundles() > 0),
      m_physical(static_cast<uint32_t>(topology.links().size())),
      m_links(m_physical + topology.bundles()),
      m_down(m_physical, 0),
      m_link_bytes(m_physical, 0.0),
      m_link_mark(m_physical + topology.bundles(), 0),
      m_route_hint(topology.vertices()) {
    // Past the largest MTU of any link the store-and-forward term no longer grows with the size.
    const TopologyParams& tp = topology.params();
    m_max_mtu = std::max({tp.die_link.mtu_bytes, tp.uplink.mtu_bytes, tp.nic_link.mtu_bytes,
                          tp.has_fallback ? tp.fallback_link.mtu_bytes : 0});
    if (m_bundle)
        for (uint32_t l = 0; l < m_physical; ++l)
            if (topology.bundle_of(l) != Topology::kNoBundle)
                m_links[l].bundle = m_physical + topology.bundle_of(l);
}

template <typename Fn>
void FlowNetwork::for_each_link_share(const RouteTemplate& r, double bytes, Fn&& fn) const {
    for (std::size_t i = 0; i < r.links.size(); ++i) {
        const uint32_t l = r.links[i];
        if (l < m_physical) {
            fn(l, bytes * r.share[i]);
            continue;
        }
        const uint32_t b = l - m_physical;
        const uint32_t* first = m_topology.bundle_begin(b);
        const std::size_t size = static_cast<std::size_t>(m_topology.bundle_end(b) - first);
        std::size_t used = 0;
        for (std::size_t j = 0; j < size; ++j) used += uses_member(r.mask[i], j) ? 1 : 0;
        for (std::size_t j = 0; j < size; ++j)
            if (uses_member(r.mask[i], j))
                fn(first[j], bytes * r.share[i] / static_cast<double>(used));
    }
}

void FlowNetwork::add_carried(const RouteTemplate& r, std::vector<double>& bytes) const {
    if (r.carried == 0) return;
    for_each_link_share(r, r.carried, [&bytes](uint32_t link, double b) { bytes[link] += b; });
}

void FlowNetwork::note_sent(const Flow& f, double sent) const {
    if (!m_observer || sent <= 0) return;
    for_each_link_share(*f.route, sent,
                        [&](uint32_t link, double b) { m_observer(link, f.updated, m_now, b); });
}

std::vector<double> FlowNetwork::link_bytes() const {
    // Bytes are summed per route as flows leave it (one addition instead of one per link) and
    // spread over the links here, or when the route leaves the cache.
    std::vector<double> bytes = m_link_bytes;
    for (const auto& [key, r] : m_routes) add_carried(*r, bytes);
    for (const auto& r : m_retired) add_carried(*r, bytes);
    return bytes;
}

void FlowNetwork::clear_routes() {
    ++m_route_epoch;
    for (auto& h : m_route_hint) h = {};
    std::vector<std::unique_ptr<RouteTemplate>> keep;
    auto retire = [&](std::unique_ptr<RouteTemplate>& r) {
        add_carried(*r, m_link_bytes);
        r->carried = 0;
        if (r->users > 0) keep.push_back(std::move(r));  // flows still on it carry more later
    };
    for (auto& r : m_retired) retire(r);
    for (auto& [key, r] : m_routes) retire(r);
    m_routes.clear();
    m_retired = std::move(keep);
}

void FlowNetwork::post(int64_t t, Kind k, uint32_t id, uint32_t version) {
    BucketHint& hint = m_bucket_hints[hint_slot(t)];
    if (hint.time != t) {
        uint32_t b;
        if (!m_free_buckets.empty()) {
            b = m_free_buckets.back();
            m_free_buckets.pop_back();
        } else {
            b = static_cast<uint32_t>(m_buckets.size());
            m_buckets.emplace_back();
        }
        m_bucket_heap.push({t, m_buckets_made++, b});
        hint = {t, b};
    }
    m_buckets[hint.bucket].push_back({k, id, version});
}

void FlowNetwork::start_transfer(uint32_t src, uint32_t dst, uint64_t bytes, LinkOp op,
                                 int64_t at_ps, Delivered done, uint64_t label_key, int64_t wait_ps,
                                 Warm warm) {
    if (!m_topology.is_endpoint(src) || !m_topology.is_endpoint(dst))
        throw InputError(
            fmt::format("transfer {} -> {} names an endpoint that does not exist (dies 0..{}{})",
                        src, dst, m_topology.dies() - 1,
                        m_topology.params().has_fallback ? " and the fallback star's hosts" : ""));
    at_ps = std::max(at_ps, m_now);
    uint32_t id;
    if (!m_free_transfers.empty()) {
        id = m_free_transfers.back();
        m_free_transfers.pop_back();
    } else {
        id = static_cast<uint32_t>(m_transfers.size());
        m_transfers.emplace_back();
        m_pending_bytes.push_back(0);
    }
    m_transfers[id] =
        Transfer{src, dst, op, 0, std::move(done), label_key, warm, std::max<int64_t>(0, wait_ps)};
    m_pending_bytes[id] = static_cast<double>(bytes);
    ++m_pending;
    ++m_stats.transfers;
    if (at_ps == m_now && m_running) {
        begin_transfer(id, m_pending_bytes[id], at_ps);  // solved with the rest of this instant
    } else {
        post(at_ps, Kind::start, id);
    }
}

int64_t FlowNetwork::message_latency_ps(uint32_t src, uint32_t dst, uint64_t bytes, LinkOp op) {
    if (src == dst) return 0;
    RouteTemplate* const route = route_template(src, dst, op, static_cast<double>(bytes));
    if (route == nullptr) return -1;
    if (route->message_latency_ps >= 0 && route->message_bytes == bytes)
        return route->message_latency_ps;
    const auto per_path = static_cast<uint64_t>(
        std::ceil(static_cast<double>(bytes) / static_cast<double>(route->paths.size())));
    int64_t latency = 0;
    for (const Path& p : route->paths)
        latency = std::max(latency, m_topology.path_latency_ps(p, per_path, op));
    double drain = 0;  // seconds per payload byte at the busiest link of the route
    for (double c : route->cost) drain = std::max(drain, c);
    route->message_bytes = bytes;
    route->message_latency_ps =
        latency + static_cast<int64_t>(std::ceil(static_cast<double>(bytes) * drain * 1e12));
    return route->message_latency_ps;
}

void FlowNetwork::schedule(int64_t at_ps, std::function<void()> fn, Warm warm) {
    uint32_t id;
    if (!m_free_timers.empty()) {
        id = m_free_timers.back();
        m_free_timers.pop_back();
        m_timers[id] = std::move(fn);
        m_timer_warm[id] = warm;
    } else {
        id = static_cast<uint32_t>(m_timers.size());
        m_timers.push_back(std::move(fn));
        m_timer_warm.push_back(warm);
    }
    post(std::max(at_ps, m_now), Kind::timer, id);
}

void FlowNetwork::set_link_down(uint32_t link, int64_t at_ps) {
    if (link >= m_down.size()) throw InputError(fmt::format("link {} does not exist", link));
    post(std::max(at_ps, m_now), Kind::link_down, link);
}

FlowNetwork::RouteTemplate* FlowNetwork::route_template(uint32_t src, uint32_t dst, LinkOp op,
                                                        double bytes) {
    const LinkParams& first = m_topology.params().die_link;
    const uint64_t packets = first.packets_for(static_cast<uint64_t>(bytes));
    // Small messages use as many paths as they have packets.
    const uint64_t want = std::min<uint64_t>(m_max_paths, std::max<uint64_t>(1, packets));
    const uint64_t key = (static_cast<uint64_t>(src) << 40) ^ (static_cast<uint64_t>(dst) << 16) ^
                         (want << 1) ^ (op == LinkOp::read ? 1u : 0u);
    // A collective sends from a die to the same peer step after step: one entry per source
    // answers most look-ups without the hash table.
    std::array<RouteHint, 2>& hints = m_route_hint[src];
    if (hints[0].route != nullptr && hints[0].key == key) return hints[0].route;
    if (hints[1].route != nullptr && hints[1].key == key) {
        std::swap(hints[0], hints[1]);
        return hints[0].route;
    }
    RouteHint& hint = hints[1];  // the older one makes room
    auto remember = [&](RouteTemplate* route) {
        hint = {key, route};
        std::swap(hints[0], hints[1]);
    };
    auto it = m_routes.find(key);
    if (it != m_routes.end()) {
        remember(it->second.get());
        return it->second.get();
    }
    std::vector<Path> paths = m_routing->routes(m_topology, src, dst, want, m_down);
    if (paths.empty()) return nullptr;
    if (m_routes.size() > (1u << 20)) clear_routes();  // bound the memory
    std::unique_ptr<RouteTemplate>& slot = m_routes[key];
    slot = std::make_unique<RouteTemplate>();
    RouteTemplate* const made = slot.get();
    remember(made);
    RouteTemplate& r = *made;
    r.paths = std::move(paths);
    r.path_count = static_cast<uint32_t>(r.paths.size());
    // Packets are sprayed evenly over the paths: each link carries 1/k of the flow per path it is
    // on (a shared first or last link carries all of it).
    const double k = static_cast<double>(r.paths.size());
    std::vector<std::pair<uint32_t, double>> use;
    for (const Path& p : r.paths)
        for (uint32_t l : p)
            use.emplace_back(l, 1.0 / (k * m_topology.link_params(l).payload_bytes_per_s(op)));
    std::sort(use.begin(), use.end());
    for (const auto& [l, c] : use) {
        if (!r.links.empty() && r.links.back() == l) {
            r.cost.back() += c;
        } else {
            r.links.push_back(l);
            r.cost.push_back(c);
        }
    }
    for (std::size_t i = 0; i < r.links.size(); ++i)
        r.share.push_back(r.cost[i] * m_topology.link_params(r.links[i]).payload_bytes_per_s(op));
    r.mask.assign(r.links.size(), 0);
    if (m_bundle) aggregate_bundles(r);
    r.solo_rate = 1.0 / *std::max_element(r.cost.begin(), r.cost.end());
    return made;
}

void FlowNetwork::aggregate_bundles(RouteTemplate& r) const {
    // (bundle, position in r.links) of the links that belong to a bundle, grouped by bundle.
    std::vector<std::pair<uint32_t, uint32_t>> members;
    for (uint32_t i = 0; i < r.links.size(); ++i) {
        const uint32_t v = m_links[r.links[i]].bundle;
        if (v != Topology::kNoBundle) members.emplace_back(v - m_physical, i);
    }
    if (members.empty()) return;
    std::sort(members.begin(), members.end());
    std::vector<char> replaced(r.links.size(), 0);
    struct Aggregate {
        uint32_t id;
        double cost, share;
        uint64_t mask;
        bool operator<(const Aggregate& o) const { return id < o.id; }
    };
    std::vector<Aggregate> added;
    for (std::size_t a = 0; a < members.size();) {
        std::size_t z = a;
        while (z < members.size() && members[z].first == members[a].first) ++z;
        const uint32_t b = members[a].first;
        const uint32_t* first = m_topology.bundle_begin(b);
        const auto size = static_cast<std::size_t>(m_topology.bundle_end(b) - first);
        // Several members, each with the same cost (the same number of paths over equal links):
        // their constraints are alike, one stands for all. Bundles of more than 64 links are
        // aggregated only when every member is used (the mask has no bit for the rest).
        bool even = z - a >= 2 && (size <= 64 || z - a == size);
        for (std::size_t j = a; even && j < z; ++j)
            even = r.cost[members[j].second] == r.cost[members[a].second];
        if (even) {
            double share = 0;
            uint64_t mask = 0;
            for (std::size_t j = a; j < z; ++j) {
                replaced[members[j].second] = 1;
                share += r.share[members[j].second];
                if (size <= 64) {
                    const auto at =
                        std::find(first, first + size, r.links[members[j].second]) - first;
                    mask |= uint64_t{1} << at;
                }
            }
            added.push_back({m_physical + b, r.cost[members[a].second], share,
                             size <= 64 ? mask : kAllMembers});
        }
        a = z;
    }
    if (added.empty()) return;
    RouteTemplate out;
    for (std::size_t i = 0; i < r.links.size(); ++i) {
        if (replaced[i]) continue;
        out.links.push_back(r.links[i]);
        out.cost.push_back(r.cost[i]);
        out.share.push_back(r.share[i]);
        out.mask.push_back(0);
    }
    std::sort(added.begin(), added.end());
    for (const Aggregate& g : added) {  // aggregate ids follow every physical id: still sorted
        out.links.push_back(g.id);
        out.cost.push_back(g.cost);
        out.share.push_back(g.share);
        out.mask.push_back(g.mask);
    }
    r.links = std::move(out.links);
    r.cost = std::move(out.cost);
    r.share = std::move(out.share);
    r.mask = std::move(out.mask);
    r.bundled = true;
}

uint32_t FlowNetwork::new_flow(uint32_t transfer, RouteTemplate* route, double bytes) {
    uint32_t id;
    if (!m_free_flows.empty()) {
        id = m_free_flows.back();
        m_free_flows.pop_back();
    } else {
        id = static_cast<uint32_t>(m_flows.size());
        m_flows.emplace_back();
    }
    Flow& f = m_flows[id];
    const LinkOp op = m_transfers[transfer].op;
    f.transfer = transfer;
    f.weight = m_transfers[transfer].weight;
    f.remaining = bytes;
    f.rate = 0;
    f.updated = m_now;
    const uint64_t first_packet =
        static_cast<uint64_t>(std::ceil(bytes / static_cast<double>(route->path_count)));
    // Past the largest MTU every size has the same latency; below it a collective repeats sizes.
    const uint64_t latency_key = std::min(first_packet, m_max_mtu);
    int64_t latency = 0;
    if (route->latency_ps >= 0 && route->latency_packet == latency_key) {
        latency = route->latency_ps;
    } else {
        for (const Path& p : route->paths)
            latency = std::max(latency, m_topology.path_latency_ps(p, first_packet, op));
        if (latency_key < UINT32_MAX) {
            route->latency_packet = static_cast<uint32_t>(latency_key);
            route->latency_ps = latency;
        }
    }
    f.delay = latency + m_transfers[transfer].wait_ps;
    f.stream = m_transfers[transfer].stream != kNotAStream;
    f.route = route;
    f.slot.clear();
    for (std::size_t i = 0; i < route->links.size(); ++i) f.slot.push_back(0);
    if (route->bundled) ++m_stats.bundled_flows;
    ++f.version;
    ++m_transfers[transfer].flows_left;
    ++m_stats.flows;
    return id;
}

void FlowNetwork::activate(uint32_t id) {
    Flow& f = m_flows[id];
    f.active = true;
    ++f.route->users;
    bool shared = false;
    for (std::size_t i = 0; i < f.route->links.size(); ++i) {
        const uint32_t l = f.route->links[i];
        auto& on_link = m_links[l].flows;
        shared = shared || !on_link.empty() || bundle_busy(l);
        f.slot[i] = on_link.push(id);
        count_member(l, 1);
    }
    if (shared) {
        for (uint32_t l : f.route->links) m_dirty_links.push_back(l);
        return;
    }
    // Alone on all its links (the common case of a collective step): its own most loaded link
    // sets the rate, no component to solve. A flow that joins one of these links later marks
    // it dirty and the solve takes this flow along.
    ++m_stats.rate_solves;
    ++m_stats.solved_flows;
    f.rate = f.route->solo_rate;
    ++f.version;
    post_finish(id);
}

int64_t FlowNetwork::drain_ps(const Flow& f) {
    return static_cast<int64_t>(std::ceil(std::max(0.0, f.remaining) / f.rate * 1e12));
}

void FlowNetwork::post_finish(uint32_t id) {
    const Flow& f = m_flows[id];
    post(m_now + drain_ps(f), Kind::finish, id, f.version);
}

void FlowNetwork::account_sent(Flow& f) {
    const double sent =
        std::min(f.remaining, f.rate * static_cast<double>(m_now - f.updated) * 1e-12);
    note_sent(f, sent);
    f.route->carried += sent;  // the bytes sent at the old rate were carried by its links
    f.remaining -= sent;
    f.updated = m_now;
}

void FlowNetwork::deactivate(uint32_t id) {
    Flow& f = m_flows[id];
    account_sent(f);
    f.active = false;
    --f.route->users;  // f.route is not read again while f is inactive
    ++f.version;
    for (std::size_t i = 0; i < f.route->links.size(); ++i) {
        const uint32_t l = f.route->links[i];
        auto& on_link = m_links[l].flows;
        const uint32_t moved = on_link.back();
        on_link.set(f.slot[i], moved);
        on_link.pop();
        if (moved != id) {
            Flow& g = m_flows[moved];  // its links are sorted
            const auto at = std::lower_bound(g.route->links.begin(), g.route->links.end(), l) -
                            g.route->links.begin();
            g.slot[static_cast<std::size_t>(at)] = f.slot[i];
        }
        count_member(l, -1);
        if (!on_link.empty() || bundle_busy(l))
            m_dirty_links.push_back(l);  // the flows left may speed up
    }
}

void FlowNetwork::begin_transfer(uint32_t t, double bytes, int64_t at) {
    (void)at;
    Transfer& tr = m_transfers[t];
    if (tr.src == tr.dst) {
        m_pending_bytes[t] = 0;
        post(m_now + tr.wait_ps, Kind::deliver, std::numeric_limits<uint32_t>::max(), t);
        return;
    }
    RouteTemplate* const route = route_template(tr.src, tr.dst, tr.op, bytes);
    if (route == nullptr) {
        tr.stuck = true;
        return;
    }
    activate(new_flow(t, route, bytes));
}

void FlowNetwork::solve() {
    if (m_dirty_links.empty()) return;
    ++m_epoch;
    // Each connected set of flows and links touched since the last solve is solved on its own.
    const std::vector<uint32_t> dirty = std::move(m_dirty_links);
    m_dirty_links.clear();
    for (uint32_t start : dirty) {
        if (m_link_mark[start] == m_epoch) continue;
        m_link_mark[start] = m_epoch;
        m_comp_flows.clear();
        m_stack.assign(1, start);
        while (!m_stack.empty()) {
            const uint32_t l = m_stack.back();
            m_stack.pop_back();
            const FlowsOnLink& on_link = m_links[l].flows;
            for (uint32_t j = 0; j < on_link.size(); ++j) {
                const uint32_t fid = on_link[j];
                Flow& f = m_flows[fid];
                if (f.mark == m_epoch) continue;
                f.mark = m_epoch;
                m_comp_flows.push_back(fid);
                for (uint32_t k : f.route->links) {
                    if (m_link_mark[k] == m_epoch) continue;
                    m_link_mark[k] = m_epoch;
                    m_stack.push_back(k);
                }
            }
            // A bundle and its members constrain each other's flows while both carry some.
            if (l >= m_physical) {
                const uint32_t b = l - m_physical;
                if (m_links[l].member_flows == 0) continue;
                for (const uint32_t* m = m_topology.bundle_begin(b); m != m_topology.bundle_end(b);
                     ++m) {
                    if (m_link_mark[*m] == m_epoch || m_links[*m].flows.empty()) continue;
                    m_link_mark[*m] = m_epoch;
                    m_stack.push_back(*m);
                }
            } else if (const uint32_t v = m_links[l].bundle; v != Topology::kNoBundle &&
                                                             m_link_mark[v] != m_epoch &&
                                                             !m_links[v].flows.empty()) {
                m_link_mark[v] = m_epoch;
                m_stack.push_back(v);
            }
        }
        if (!m_comp_flows.empty()) solve_component(m_comp_flows);
    }
}

void FlowNetwork::solve_component(const std::vector<uint32_t>& comp_flows) {
    ++m_stats.rate_solves;
    m_stats.solved_flows += comp_flows.size();
    // Bring every flow of the component up to now.
    for (uint32_t fid : comp_flows) account_sent(m_flows[fid]);
    if (comp_flows.size() == 1) {
        // Alone on its links: the most loaded link sets the rate.
        Flow& f = m_flows[comp_flows[0]];
        const double rate = f.route->solo_rate;
        if (f.rate != rate) {
            f.rate = rate;
            ++f.version;
            post_finish(comp_flows[0]);
        }
        return;
    }
    // Progressive filling: all unfrozen flows grow at one level; the link whose time share runs
    // out first freezes its flows at that level.
    // Constraints: the links the flows cross, except that an aggregated bundle whose members also
    // carry flows of their own stands for its members again (each with the aggregate's cost).
    // Aggregates to expand: bundles whose members carry flows of their own, or whose aggregated
    // flows use different members.
    m_cons_masks.clear();
    m_expand.clear();
    for (uint32_t fid : comp_flows) {
        const RouteTemplate& r = *m_flows[fid].route;
        if (!r.bundled) continue;
        for (std::size_t i = 0; i < r.links.size(); ++i)
            if (r.links[i] >= m_physical) m_cons_masks.emplace_back(r.links[i], r.mask[i]);
    }
    std::sort(m_cons_masks.begin(), m_cons_masks.end());
    m_cons_masks.erase(std::unique(m_cons_masks.begin(), m_cons_masks.end()), m_cons_masks.end());
    for (std::size_t i = 0; i < m_cons_masks.size(); ++i) {
        const uint32_t l = m_cons_masks[i].first;
        const bool several = (i > 0 && m_cons_masks[i - 1].first == l) ||
                             (i + 1 < m_cons_masks.size() && m_cons_masks[i + 1].first == l);
        if ((several || m_links[l].member_flows != 0) && (m_expand.empty() || m_expand.back() != l))
            m_expand.push_back(l);
    }
    m_cons_start.assign(1, 0);
    m_cons_ids.clear();
    m_cons_cost.clear();
    for (uint32_t fid : comp_flows) {
        const RouteTemplate& r = *m_flows[fid].route;
        // A flow of weight w takes w units of rate per unit of level: its link time per level is
        // its cost times w (exact for w = 1).
        const double w = m_flows[fid].weight;
        for (std::size_t i = 0; i < r.links.size(); ++i) {
            const uint32_t l = r.links[i];
            if (l >= m_physical && std::binary_search(m_expand.begin(), m_expand.end(), l)) {
                const uint32_t b = l - m_physical;
                const uint32_t* first = m_topology.bundle_begin(b);
                const auto size = static_cast<std::size_t>(m_topology.bundle_end(b) - first);
                for (std::size_t j = 0; j < size; ++j) {
                    if (!uses_member(r.mask[i], j)) continue;
                    m_cons_ids.push_back(first[j]);
                    m_cons_cost.push_back(r.cost[i] * w);
                }
            } else {
                m_cons_ids.push_back(l);
                m_cons_cost.push_back(r.cost[i] * w);
            }
        }
        m_cons_start.push_back(static_cast<uint32_t>(m_cons_ids.size()));
    }
    // Positions by binary search in the sorted, distinct constraint ids.
    m_cons_pos = m_cons_ids;
    std::sort(m_cons_pos.begin(), m_cons_pos.end());
    m_cons_pos.erase(std::unique(m_cons_pos.begin(), m_cons_pos.end()), m_cons_pos.end());
    for (uint32_t& id : m_cons_ids)
        id = static_cast<uint32_t>(std::lower_bound(m_cons_pos.begin(), m_cons_pos.end(), id) -
                                   m_cons_pos.begin());
    struct LinkState {
        double used = 0;    // link-time share taken by frozen flows
        double weight = 0;  // link-time per unit of level of the unfrozen flows
        uint32_t version = 0;
    };
    std::vector<LinkState> state(m_cons_pos.size());
    std::vector<std::vector<uint32_t>> link_members(m_cons_pos.size());
    for (std::size_t fi = 0; fi < comp_flows.size(); ++fi) {
        for (uint32_t c = m_cons_start[fi]; c < m_cons_start[fi + 1]; ++c) {
            state[m_cons_ids[c]].weight += m_cons_cost[c];
            link_members[m_cons_ids[c]].push_back(static_cast<uint32_t>(fi));
        }
    }
    struct Entry {
        double level;
        uint32_t link;
        uint32_t version;
        bool operator>(const Entry& o) const {
            return level != o.level ? level > o.level : link > o.link;
        }
    };
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    for (uint32_t p = 0; p < state.size(); ++p)
        if (state[p].weight > 0) heap.push({(1.0 - state[p].used) / state[p].weight, p, 0});
    std::vector<char> frozen(comp_flows.size(), 0);
    std::vector<double> new_rate(comp_flows.size(), 0.0);
    while (!heap.empty()) {
        const Entry e = heap.top();
        heap.pop();
        if (e.version != state[e.link].version || state[e.link].weight <= 0) continue;
        const double level = std::max(0.0, e.level);
        for (uint32_t fi : link_members[e.link]) {
            if (frozen[fi]) continue;
            frozen[fi] = 1;
            new_rate[fi] = level * m_flows[comp_flows[fi]].weight;
            for (uint32_t c = m_cons_start[fi]; c < m_cons_start[fi + 1]; ++c) {
                LinkState& s = state[m_cons_ids[c]];
                s.used += m_cons_cost[c] * level;
                s.weight -= m_cons_cost[c];
                ++s.version;
                if (s.weight > 1e-30 && m_cons_ids[c] != e.link)
                    heap.push({(1.0 - s.used) / s.weight, m_cons_ids[c], s.version});
            }
        }
    }
    for (std::size_t fi = 0; fi < comp_flows.size(); ++fi) {
        Flow& f = m_flows[comp_flows[fi]];
        if (f.rate == new_rate[fi] && f.version != 0 && f.rate > 0) continue;
        f.rate = new_rate[fi];
        ++f.version;
        if (f.rate <= 0) continue;
        post_finish(comp_flows[fi]);
    }
}

uint32_t FlowNetwork::open_stream(uint32_t src, uint32_t dst, LinkOp op, double weight) {
    if (!m_topology.is_endpoint(src) || !m_topology.is_endpoint(dst) || src == dst)
        throw InputError(fmt::format("a stream {} -> {} needs two distinct endpoints", src, dst));
    const auto id = static_cast<uint32_t>(m_transfers.size());
    m_transfers.emplace_back();
    m_pending_bytes.push_back(0);
    Transfer& tr = m_transfers[id];
    tr.src = src;
    tr.dst = dst;
    tr.op = op;
    tr.weight = weight > 0 ? weight : 1.0;
    tr.stream = static_cast<uint32_t>(m_streams.size());
    m_streams.push_back({id});
    return tr.stream;
}

int64_t FlowNetwork::stream_push(uint32_t stream, uint64_t bytes) {
    Stream& st = m_streams.at(stream);
    if (st.flow == kNoFlow) {
        const Transfer& tr = m_transfers[st.transfer];
        RouteTemplate* const route = route_template(tr.src, tr.dst, tr.op, kStreamRouteBytes);
        if (route == nullptr)
            throw SimulationError(fmt::format(
                "traffic die{} -> die{} at {:.3f} us: no route (the links it needs are down)",
                tr.src, tr.dst, static_cast<double>(m_now) * 1e-6));
        st.flow = new_flow(st.transfer, route, static_cast<double>(bytes));
        activate(st.flow);
        solve();  // its share, and the flows it slows down, from now
    } else {
        // Its finish event stays as it is: when it comes, the stream goes on with what was
        // pushed since (one event per drained backlog, not one per push).
        Flow& f = m_flows[st.flow];
        account_sent(f);
        f.remaining += static_cast<double>(bytes);
    }
    const Flow& f = m_flows[st.flow];
    if (f.rate <= 0) return std::numeric_limits<int64_t>::max();
    return m_now + drain_ps(f);
}

void FlowNetwork::advance_to(int64_t t) {
    if (m_running || t < m_now) return;
    run_until(t);
    m_now = std::max(m_now, t);
}

void FlowNetwork::run() {
    run_until(std::numeric_limits<int64_t>::max());
    if (m_pending != 0) report_stuck();
}

int64_t FlowNetwork::next_event_ps() const {
    return m_bucket_heap.empty() ? std::numeric_limits<int64_t>::max() : m_bucket_heap.top().time;
}

void FlowNetwork::run_until(int64_t limit_ps) {
    m_running = true;
    while (!m_bucket_heap.empty() && m_bucket_heap.top().time <= limit_ps) {
        const int64_t t = m_bucket_heap.top().time;
        m_now = t;
        // Every bucket of time t (events posted at t while they run join the newest), then the
        // rates.
        while (!m_bucket_heap.empty() && m_bucket_heap.top().time == t) {
            const uint32_t b = m_bucket_heap.top().bucket;
            // The read-ahead below goes on into the bucket that most likely runs next (an instant
            // has 3-4 events at 8,192 ranks, so most events are among the first three of theirs);
            // its events were written when they were posted and are cold by now.
            const uint32_t next_b = m_bucket_heap.runner_up();
            if (next_b != BucketHeap::kNone && !m_buckets[next_b].empty())
                __builtin_prefetch(m_buckets[next_b].data());
            std::size_t i = 0;
            // The event k after event i, in this bucket or the next; nullptr past both. (m_buckets
            // may grow while an event runs: index it afresh each time.)
            const auto ahead = [&](std::size_t k) -> const Event* {
                const std::vector<Event>& bucket = m_buckets[b];
                if (i + k < bucket.size()) return &bucket[i + k];
                if (next_b == BucketHeap::kNone) return nullptr;
                const std::vector<Event>& next = m_buckets[next_b];
                const std::size_t j = i + k - bucket.size();
                return j < next.size() ? &next[j] : nullptr;
            };
            for (; i < m_buckets[b].size(); ++i) {
                const Event e = m_buckets[b][i];
                // Ask the cache for what the events after this one read while this one runs: at
                // 15,488 dies they are rarely cached. Three events ahead the flow (finish) or the
                // transfer and the flow it frees, which the next transfer reuses (deliver); two
                // ahead, what those point to: the route, the caller's warm addresses and the
                // destination's route hints; one ahead, the route's links (finish) or the route
                // the destination sent on last (deliver: it usually sends next). Written here, not
                // in a function: GCC finds a function of prefetches alone free of effects and
                // drops the call.
                if (const Event* a3 = ahead(3)) {
                    const Event& n = *a3;
                    if (n.kind == Kind::finish) {
                        const char* f = reinterpret_cast<const char*>(&m_flows[n.id]);
                        __builtin_prefetch(f);
                        __builtin_prefetch(f + 64);
                    } else if (n.kind == Kind::deliver) {
                        const char* tr = reinterpret_cast<const char*>(&m_transfers[n.version]);
                        __builtin_prefetch(tr);
                        __builtin_prefetch(tr + 64);
                        if (n.id < m_flows.size()) __builtin_prefetch(&m_flows[n.id]);
                    } else if (n.kind == Kind::timer) {
                        __builtin_prefetch(&m_timers[n.id]);
                        __builtin_prefetch(&m_timer_warm[n.id]);
                    }
                }
                if (const Event* a2 = ahead(2)) {
                    const Event& n = *a2;
                    if (n.kind == Kind::finish) {
                        const char* r = reinterpret_cast<const char*>(m_flows[n.id].route);
                        __builtin_prefetch(r);
                        __builtin_prefetch(r + 64);
                    } else if (n.kind == Kind::deliver) {
                        const Transfer& tr = m_transfers[n.version];
                        for (const void* w : tr.warm)
                            if (w != nullptr) __builtin_prefetch(w);
                        __builtin_prefetch(&m_route_hint[tr.dst]);
                    } else if (n.kind == Kind::timer) {
                        for (const void* w : m_timer_warm[n.id])
                            if (w != nullptr) __builtin_prefetch(w);
                    }
                }
                if (const Event* a1 = ahead(1)) {
                    const Event& n = *a1;
                    if (n.kind == Kind::finish && m_flows[n.id].active) {
                        for (const uint32_t l : m_flows[n.id].route->links)
                            __builtin_prefetch(&m_links[l]);
                    } else if (n.kind == Kind::deliver) {
                        const RouteTemplate* next =
                            m_route_hint[m_transfers[n.version].dst][0].route;
                        if (next != nullptr) __builtin_prefetch(next);
                    }
                }
                dispatch(e);
            }
            // Later buckets of time t only: the heap's top is still this one.
            m_bucket_heap.pop();
            m_buckets[b].clear();
            m_free_buckets.push_back(b);
            BucketHint& hint = m_bucket_hints[hint_slot(t)];
            if (hint.time == t && hint.bucket == b) hint = {};
        }
        solve();
    }
    m_running = false;
}

void FlowNetwork::dispatch(const Event& e) {
    const int64_t t = m_now;
    ++m_stats.events;
    switch (e.kind) {
        case Kind::start: {
            const double bytes = m_pending_bytes[e.id];
            begin_transfer(e.id, bytes, t);
            break;
        }
        case Kind::finish: {
            Flow& f = m_flows[e.id];
            if (!f.active || f.version != e.version) break;
            if (f.stream) {
                account_sent(f);
                if (f.remaining >= 1.0) {  // bytes pushed after this event was posted
                    post_finish(e.id);
                    break;
                }
            }
            deactivate(e.id);
            if (f.stream) {
                // A stream's backlog has drained: it leaves its links until more comes.
                Transfer& tr = m_transfers[f.transfer];
                m_streams[tr.stream].flow = kNoFlow;
                --tr.flows_left;
                m_free_flows.push_back(e.id);
                break;
            }
            // The delivery names the transfer too: it need not read the flow again.
            post(m_now + f.delay, Kind::deliver, e.id, f.transfer);
            break;
        }
        case Kind::deliver: {
            const uint32_t t_id = e.version;
            // e.id: the flow, or none for a transfer to itself.
            if (e.id != std::numeric_limits<uint32_t>::max()) {
                m_free_flows.push_back(e.id);
                if (--m_transfers[t_id].flows_left != 0) break;
            }
            Transfer& tr = m_transfers[t_id];
            --m_pending;
            Delivered done = std::move(tr.done);
            m_free_transfers.push_back(t_id);
            if (done) done(m_now);
            break;
        }
        case Kind::link_down: {
            m_down[e.id] = 1;
            clear_routes();
            // The flows on the link and those aggregated over its bundle (they cross it).
            std::vector<uint32_t> on_link;
            for (uint32_t j = 0; j < m_links[e.id].flows.size(); ++j)
                on_link.push_back(m_links[e.id].flows[j]);
            if (const uint32_t v = m_links[e.id].bundle; v != Topology::kNoBundle)
                for (uint32_t j = 0; j < m_links[v].flows.size(); ++j)
                    on_link.push_back(m_links[v].flows[j]);
            for (uint32_t fid : on_link) {
                deactivate(fid);
                Flow& f = m_flows[fid];
                const uint32_t t_id = f.transfer;
                const double left = f.remaining;
                --m_transfers[t_id].flows_left;
                m_free_flows.push_back(fid);
                ++m_stats.reroutes;
                Transfer& tr = m_transfers[t_id];
                const bool stream = tr.stream != kNotAStream;
                RouteTemplate* const route =
                    route_template(tr.src, tr.dst, tr.op, stream ? kStreamRouteBytes : left);
                if (stream) m_streams[tr.stream].flow = kNoFlow;
                if (route == nullptr) {
                    // A stream's backlog is dropped; its next push reports the lack
                    // of a route.
                    if (stream) continue;
                    tr.stuck = true;
                    ++tr.flows_left;  // never delivered
                    continue;
                }
                const uint32_t moved = new_flow(t_id, route, left);
                if (stream) m_streams[tr.stream].flow = moved;
                activate(moved);
            }
            break;
        }
        case Kind::timer: {
            std::function<void()> fn = std::move(m_timers[e.id]);
            m_free_timers.push_back(e.id);
            fn();
            break;
        }
    }
}

void FlowNetwork::report_stuck() const {
    std::string list;
    std::size_t listed = 0, stuck = 0;
    for (std::size_t i = 0; i < m_transfers.size(); ++i) {
        const Transfer& t = m_transfers[i];
        if (!t.stuck) continue;
        ++stuck;
        if (listed++ < 10)
            list += fmt::format("\n  {} die{} -> die{}{}",
                                m_labeler ? m_labeler(t.label_key) : "transfer", t.src, t.dst,
                                " (no route: the links it needs are down)");
    }
    throw SimulationError(
        fmt::format("watchdog: the network stalled at {:.3f} us with {} transfers unfinished "
                    "({} without a route):{}",
                    static_cast<double>(m_now) * 1e-6, m_pending, stuck, list));
}

}  // namespace asim
