// Flow-level network: transfers between dies share link bandwidth max-min fairly, and time jumps
// from one event (a transfer starting, a flow's last byte leaving, a delivery, a link going down,
// a timer) to the next; an idle link costs nothing and there is no per-cycle loop.
//
// Timing of one transfer of B payload bytes: it becomes one flow whose packets are sprayed evenly
// over up to `max_paths` equal-cost paths (planes / ECMP); the flow drains at its max-min fair
// rate, where a flow of op o uses 1 / (k x payload_bytes_per_s(o)) of a link's time per payload
// byte for each of its k paths on that link (so read and write efficiency and packet headers are
// part of the share); its last byte arrives one path latency (the longest of its paths) later
// (propagation and switching of every link, store-and-forward of one packet at every link but the
// last: Topology::path_latency_ps). Rates are recomputed only for the connected set of flows and
// links that a change touches.
//
// Bundles (on by default): a flow whose packets are sprayed evenly over several links of a bundle
// of parallel links (Topology: the planes of a switched node or Clos, the spines of a fat-tree)
// loads each of them alike, so it crosses one aggregated link for the bundle instead of its
// members: a transfer touches 2 to 4 links instead of 2P to 4P. The aggregate remembers which
// members it stands for (a mask: a small message sprayed over fewer paths than planes uses some).
// Exact: while every flow on a bundle uses the same members evenly, their member constraints are
// identical and one constraint stands for all; when flows with different member sets, or flows
// on single members (uneven routes, one packet), share a bundle, the rate solve expands the
// aggregates into their members again. A link going down reroutes the flows aggregated over its
// bundle too (they cross it), and later routes avoid it, so they aggregate only the live members.
//
// Approximated: packets in flight and credits are not modelled per packet here (PacketPath does
// that for one message; at the sizes collectives move, credits only bound the rate, which the
// efficiency and the fair share already do); a flow whose link goes down restarts its remaining
// bytes from the source on a new route.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/common/small_vector.h"
#include "models/interconnect/routing/routing.h"
#include "models/interconnect/topology/topology.h"

namespace asim {

struct FlowNetworkStats {
    uint64_t events = 0;         // events processed
    uint64_t transfers = 0;      // transfers started
    uint64_t flows = 0;          // flows started (one per transfer, one more per reroute)
    uint64_t reroutes = 0;       // flows moved off a link that went down
    uint64_t rate_solves = 0;    // max-min recomputations
    uint64_t solved_flows = 0;   // flows visited by them
    uint64_t bundled_flows = 0;  // flows that cross at least one aggregated bundle
};

class FlowNetwork {
public:
    using Delivered = std::function<void(int64_t time_ps)>;

    // `bundle_parallel_links` false keeps every member link (the reference the bundles must match).
    // Routes are the topology's equal-cost shortest paths, sprayed (routing policy `minimal`).
    FlowNetwork(const Topology& topology, std::size_t max_paths, bool bundle_parallel_links = true);
    // With the routing policy `routing` (network.routing; models/interconnect/routing).
    FlowNetwork(const Topology& topology, std::size_t max_paths,
                std::unique_ptr<const Routing> routing, bool bundle_parallel_links = true);

    int64_t now_ps() const { return m_now; }
    const Topology& topology() const { return m_topology; }
    const FlowNetworkStats& stats() const { return m_stats; }

    // Starts moving `bytes` from endpoint `src` to endpoint `dst` (a die, or a host of the fallback
    // star: Topology::host_rx / host_tx) at `at_ps` (>= now); `done` runs when the
    // last byte is delivered. `label_key` names the transfer in watchdog reports through the
    // labeler (set_labeler); it is a number so that millions of transfers cost no strings. src ==
    // dst delivers at once.
    // `warm`: addresses `done` reads first (the caller's state for the message: up to six cache
    // lines), asked of the cache a few events before the delivery runs; hints only, never
    // dereferenced (a stale one costs nothing). The delivery also warms the destination's last
    // route (a collective's receiver usually sends next).
    using Warm = std::array<const void*, 6>;
    void start_transfer(uint32_t src, uint32_t dst, uint64_t bytes, LinkOp op, int64_t at_ps,
                        Delivered done, uint64_t label_key = 0, int64_t wait_ps = 0,
                        Warm warm = {});
    // `wait_ps` delays the delivery without delaying the start: a sender's start-up or wait
    // folded into the transfer, so that it begins with the rest of this instant (no event of its
    // own); its bytes load the links from at_ps, which shifts the rates of the flows sharing
    // them by at most wait_ps.
    using Labeler = std::function<std::string(uint64_t label_key)>;
    void set_labeler(Labeler labeler) { m_labeler = std::move(labeler); }
    // Told the payload bytes a flow moved over [from_ps, to_ps) at one rate, per physical link it
    // crossed (an aggregated bundle's share split evenly over the members it used): the
    // timeline's link counters. Unset, it costs nothing.
    using TrafficObserver =
        std::function<void(uint32_t link, int64_t from_ps, int64_t to_ps, double bytes)>;
    void set_traffic_observer(TrafficObserver observer) { m_observer = std::move(observer); }
    // The routes a transfer from `src` to `dst` would take now (links down so far avoided), at
    // most one.
    std::vector<Path> current_routes(uint32_t src, uint32_t dst) const {
        return m_routing->routes(m_topology, src, dst, 1, m_down);
    }
    // Counts the changes of routes (a link going down; the route cache emptied): an answer of
    // current_routes or message_latency_ps stays valid while this stays the same.
    uint64_t route_epoch() const { return m_route_epoch; }
    // Time a message of `bytes` from `src` to `dst` would take alone on the current routes: the
    // path latency plus its bytes at the route's bottleneck rate, computed, with no transfer and
    // no event (a control message too small to load the links: a collective's ready flag).
    // -1 when no route exists.
    int64_t message_latency_ps(uint32_t src, uint32_t dst, uint64_t bytes, LinkOp op);
    // Runs `fn` at `at_ps`; `warm` as start_transfer's, for what `fn` reads first.
    void schedule(int64_t at_ps, std::function<void()> fn, Warm warm = {});
    // Link `link` carries nothing from `at_ps` on; its flows move to other routes.
    void set_link_down(uint32_t link, int64_t at_ps);

    // Streams: traffic that arrives in many small pieces between one pair of endpoints (the DSM
    // pool's reads of another die's HBM, one L2 line at a time). A stream is one flow that stays
    // on its links while it has bytes to send and leaves them when its backlog drains, so it takes
    // its max-min share beside the transfers (and they beside it) without an event per piece.
    // `open_stream` returns its id; nothing moves until bytes are pushed. `weight`: its share
    // against others on a link is weighted (max-min with weights: a flow of weight w gets w
    // times the rate of a weight-1 flow held back by the same link); transfers weigh 1.
    uint32_t open_stream(uint32_t src, uint32_t dst, LinkOp op, double weight = 1.0);
    // Adds `bytes` to the stream's backlog at now() (call advance_to first), solves the rates
    // that its activation changes, and returns the time its backlog, these bytes included,
    // leaves the source at the rate it gets now (FIFO within the stream; a later change of rate
    // moves the stream's flow but not this answer). Throws SimulationError when no route exists.
    int64_t stream_push(uint32_t stream, uint64_t bytes);
    // Processes every event due at or before `t` and moves now() to `t` (for a caller in the
    // SystemC run that needs the network's state at the kernel's time).
    void advance_to(int64_t t);

    // Processes events until none is left. Throws SimulationError (the watchdog) when transfers
    // remain that can never finish (no route), listing them.
    void run();
    // For a driver with its own clock (the SystemC supernode replay): processes the events due at
    // or before `limit_ps` and returns; the time of the next event (INT64_MAX when none).
    void run_until(int64_t limit_ps);
    int64_t next_event_ps() const;
    // Transfers started and not delivered.
    std::size_t pending_transfers() const { return m_pending; }
    // Payload bytes carried per link by flows that have finished or moved (per-link occupancy); an
    // aggregated bundle's bytes are split evenly over its members.
    std::vector<double> link_bytes() const;

private:
    // Routes and their merged per-link costs, per (src, dst, op, paths used); cleared when a link
    // goes down. A collective reuses the same pairs step after step.
    // What a transfer's start and end read is in the first cache line (a flow's start reads a
    // route it has not touched since the step before, so every line costs a miss): the links
    // inline, the rate alone on them, the latency cache, the flow count, the path count. The
    // bytes carried (written when a flow leaves; the event loop asks for that line ahead) follow.
    struct alignas(64) RouteTemplate {
        SmallVector<uint32_t, 4> links;  // every link of the paths, once, sorted; ids from
                                         // topology.links().size() on are aggregated bundles
        double solo_rate = 0;            // payload bytes/s alone on its links: 1 / max(cost)
        int64_t latency_ps = -1;         // the path latency for latency_packet (-1: none yet)
        uint32_t users = 0;              // active flows on it
        uint32_t path_count = 0;         // paths.size()
        uint32_t latency_packet = 0;     // first packet size, capped at the largest MTU (sizes of
                                         // 2^32 and more are not cached)
        bool bundled = false;            // crosses an aggregated bundle
        double carried = 0;          // payload bytes sent on this route, not yet in m_link_bytes
        std::vector<double> cost;    // link-time per payload byte, per link
        std::vector<double> share;   // share of the flow's bytes each link carries
        std::vector<uint64_t> mask;  // aggregated bundles: members used (bit i: i-th member;
                                     // kAllMembers for a bundle of more than 64); 0 otherwise
        uint64_t message_bytes = 0;  // message_latency_ps's last size ...
        int64_t message_latency_ps = -1;  // ... and its answer (-1: none yet)
        std::vector<Path> paths;
    };
    // What a flow's finish event reads sits together: whether it is current (active, version),
    // its transfer, whether that is a stream, and the delay to its delivery.
    struct alignas(64) Flow {
        uint32_t transfer;
        uint32_t version = 0;  // finish events of older versions are stale
        bool active = false;
        bool stream = false;             // its transfer is a stream's
        RouteTemplate* route = nullptr;  // counted in route->users while active
        int64_t delay = 0;    // from the last byte leaving to the delivery: the path latency and
                              // the transfer's wait_ps
        double remaining;     // payload bytes still to leave the source
        double rate = 0;      // payload bytes per second
        int64_t updated = 0;  // time `remaining` refers to
        double weight = 1.0;  // weighted max-min: rate = level x weight
        SmallVector<uint32_t, 4> slot;  // position in each link's flow list
        uint32_t mark = 0;
    };
    // Two cache lines: the delivery reads the first (done) and the warm hints before it.
    struct alignas(64) Transfer {
        uint32_t src, dst;
        LinkOp op;
        uint32_t flows_left = 0;
        Delivered done;
        uint64_t label_key = 0;
        Warm warm{};                    // start_transfer's hints
        int64_t wait_ps = 0;            // added to the delivery (start_transfer's wait_ps)
        uint32_t stream = kNotAStream;  // a stream's transfer: never delivered
        bool stuck = false;
        double weight = 1.0;  // its flows' weight in the max-min share
    };
    static constexpr uint32_t kNotAStream = ~uint32_t{0};
    static constexpr uint32_t kNoFlow = ~uint32_t{0};
    // A stream takes the routes of a large transfer (sprayed over every path it may use).
    static constexpr double kStreamRouteBytes = 1ull << 30;
    struct Stream {
        uint32_t transfer;        // holds its endpoints and op
        uint32_t flow = kNoFlow;  // active while the backlog lasts
    };
    enum class Kind : uint8_t { start, finish, deliver, link_down, timer };
    struct Event {
        Kind kind;
        uint32_t id;
        uint32_t version;
    };
    // Events run in order of time, those of one time in the order they were posted. A collective
    // on a symmetric network posts thousands of events for the same instant (every rank's step
    // ends together), so they are kept in buckets, one list per time in posting order, and only
    // the buckets are ordered by a heap: (time, when the bucket was made). An event goes to the
    // newest bucket of its time, found through a small cache indexed by time; when the cache has
    // lost it, a new bucket is made for that time, which then runs after the older ones of the
    // same time: the order of posting is kept either way.
    struct BucketKey {
        int64_t time;
        uint64_t made;    // orders the buckets of one time
        uint32_t bucket;  // index in m_buckets
        bool operator>(const BucketKey& o) const {
            return time != o.time ? time > o.time : made > o.made;
        }
    };
    struct BucketHint {
        int64_t time = -1;
        uint32_t bucket = 0;  // the newest bucket of `time`
    };
    static constexpr std::size_t kBucketHints = 64;  // a power of two
    static std::size_t hint_slot(int64_t t) {
        return static_cast<std::size_t>((static_cast<uint64_t>(t) * 0x9E3779B97F4A7C15ull) >> 58);
    }
    void dispatch(const Event& e);

    // The cached route (made when missing), nullptr when there is none. The pointer stays valid
    // while a flow uses it, or until the next route_template call otherwise.
    RouteTemplate* route_template(uint32_t src, uint32_t dst, LinkOp op, double bytes);
    void aggregate_bundles(RouteTemplate& r) const;
    static constexpr uint64_t kAllMembers = ~uint64_t{0};
    bool uses_member(uint64_t mask, std::size_t position) const {
        return mask == kAllMembers || (position < 64 && ((mask >> position) & 1u) != 0);
    }
    // Adds a route's carried bytes to `bytes` (per link, aggregates split over their members).
    void add_carried(const RouteTemplate& r, std::vector<double>& bytes) const;
    // Calls fn(physical link, bytes) for `bytes` sent on route `r`.
    template <typename Fn>
    void for_each_link_share(const RouteTemplate& r, double bytes, Fn&& fn) const;
    // Accounts `sent` bytes of flow `f` since f.updated (the observer's part).
    void note_sent(const Flow& f, double sent) const;
    void clear_routes();
    // Whether flows other than those on link `l` itself constrain it: aggregated flows on the
    // bundle of a member link, or member flows of an aggregated bundle.
    bool bundle_busy(uint32_t l) const {
        if (l >= m_physical) return m_links[l].member_flows != 0;
        const uint32_t v = m_links[l].bundle;
        return v != Topology::kNoBundle && !m_links[v].flows.empty();
    }
    void count_member(uint32_t l, int delta) {
        if (l < m_physical && m_links[l].bundle != Topology::kNoBundle)
            m_links[m_links[l].bundle].member_flows += static_cast<uint32_t>(delta);
    }

    void post(int64_t t, Kind k, uint32_t id, uint32_t version = 0);
    uint32_t new_flow(uint32_t transfer, RouteTemplate* route, double bytes);
    void activate(uint32_t flow);
    void deactivate(uint32_t flow);
    void solve();  // max-min over the components touched since the last solve
    void solve_component(const std::vector<uint32_t>& flows);
    void begin_transfer(uint32_t transfer, double bytes, int64_t at);
    // Brings flow `f`'s bytes sent up to now.
    void account_sent(Flow& f);
    // Time for flow `f` to send what it has left at its rate (> 0).
    static int64_t drain_ps(const Flow& f);
    void post_finish(uint32_t flow);
    [[noreturn]] void report_stuck() const;

    const Topology& m_topology;
    std::unique_ptr<const Routing> m_routing;
    std::size_t m_max_paths;
    bool m_bundle;
    uint32_t m_physical;  // links in the topology; aggregated bundles follow
    uint64_t m_max_mtu;   // the largest MTU of any link class
    int64_t m_now = 0;
    // The buckets by (time, made), least on top; it also names the bucket that will most likely
    // run after the top one, for the event loop's read-ahead.
    struct BucketHeap
        : std::priority_queue<BucketKey, std::vector<BucketKey>, std::greater<BucketKey>> {
        static constexpr uint32_t kNone = ~uint32_t{0};
        // The lesser of the top's children: the next top unless an earlier bucket is made
        // meanwhile.
        uint32_t runner_up() const {
            if (c.size() < 2) return kNone;
            return c.size() > 2 && c[1] > c[2] ? c[2].bucket : c[1].bucket;
        }
    };
    BucketHeap m_bucket_heap;
    std::vector<std::vector<Event>> m_buckets;
    std::vector<uint32_t> m_free_buckets;
    std::array<BucketHint, kBucketHints> m_bucket_hints{};
    uint64_t m_buckets_made = 0;
    std::vector<Flow> m_flows;
    std::vector<uint32_t> m_free_flows;
    std::vector<Transfer> m_transfers;
    std::vector<uint32_t> m_free_transfers;
    std::vector<Stream> m_streams;
    std::vector<double> m_pending_bytes;  // per transfer, bytes to start (start events)
    std::vector<std::function<void()>> m_timers;
    std::vector<Warm> m_timer_warm;  // schedule()'s hints, per timer
    std::vector<uint32_t> m_free_timers;
    // Active flows on one link: the first inline (most links carry at most one flow at a time,
    // so activation touches one cache line per link), the rest in a vector made when a second
    // flow first joins.
    class FlowsOnLink {
    public:
        uint32_t size() const { return m_size; }
        bool empty() const { return m_size == 0; }
        uint32_t operator[](uint32_t i) const { return i == 0 ? m_first : (*m_rest)[i - 1]; }
        void set(uint32_t i, uint32_t flow) {
            if (i == 0) {
                m_first = flow;
            } else {
                (*m_rest)[i - 1] = flow;
            }
        }
        uint32_t push(uint32_t flow) {  // returns its slot
            if (m_size == 0) {
                m_first = flow;
            } else {
                if (!m_rest) m_rest = std::make_unique<std::vector<uint32_t>>();
                m_rest->push_back(flow);
            }
            return m_size++;
        }
        uint32_t back() const { return (*this)[m_size - 1]; }
        void pop() {
            if (m_size > 1) m_rest->pop_back();
            --m_size;
        }

    private:
        uint32_t m_size = 0;
        uint32_t m_first = 0;
        std::unique_ptr<std::vector<uint32_t>> m_rest;
    };
    // Per link (physical, then aggregated bundles): what activating a flow on it reads, in one
    // place (24 bytes).
    struct LinkEntry {
        FlowsOnLink flows;                      // active flows
        uint32_t bundle = Topology::kNoBundle;  // physical link: its bundle's aggregate id
        uint32_t member_flows = 0;              // aggregate: active flow entries on its members
    };
    std::vector<LinkEntry> m_links;
    std::vector<char> m_down;
    std::vector<double> m_link_bytes;  // per physical link, from routes no longer cached
    // Routes dropped from the cache with flows still on them (their bytes are not all counted).
    std::vector<std::unique_ptr<RouteTemplate>> m_retired;
    std::vector<uint32_t> m_dirty_links;
    std::vector<uint32_t> m_link_mark;
    std::unordered_map<uint64_t, std::unique_ptr<RouteTemplate>> m_routes;
    struct RouteHint {
        uint64_t key = 0;
        RouteTemplate* route = nullptr;
    };
    // Per source: its last two routes (a collective rank sends data one way and its ready flags
    // another), the more recent first.
    std::vector<std::array<RouteHint, 2>> m_route_hint;
    bool m_running = false;
    Labeler m_labeler;
    TrafficObserver m_observer;
    std::vector<uint32_t> m_comp_flows, m_stack;                 // reused by solve()
    std::vector<uint32_t> m_cons_start, m_cons_pos, m_cons_ids;  // reused by solve_component()
    std::vector<double> m_cons_cost;
    std::vector<std::pair<uint32_t, uint64_t>> m_cons_masks;
    std::vector<uint32_t> m_expand;
    uint32_t m_epoch = 0;
    uint64_t m_route_epoch = 0;
    std::size_t m_pending = 0;
    FlowNetworkStats m_stats;
};

}  // namespace asim
