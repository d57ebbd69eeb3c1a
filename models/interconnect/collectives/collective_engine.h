// The collective engine: runs collectives (schedule.h) on the flow network. A driver starts
// collective C on a group of dies with a size at a time and gets a callback when the last rank
// finishes; every die accumulates the time it spent inside collectives (comm time).
//
// Per rank, step by step: wait for the step's receives, reduce those that need it on the vector
// cores (bytes / reduce_bandwidth), then hand the sends to the SDMA queues (one in flight per peer;
// the data moves as a write over the links). Launch overhead is paid once per collective.
//
// HCCL-like costs (each 0 by default): every message pays a start-up before its first byte
// leaves (`sdma_start` for ops moved by SDMA: descriptor fetch and doorbell; `aiv_start` for ops
// listed in `aiv_direct`, whose vector cores write straight into the peer's memory); and with
// `notify_bytes` > 0 every receive is synchronised: when a rank begins a step it writes a ready
// flag of notify_bytes to each peer it will receive from (after `notify_overhead`), and the peer
// sends that step's data only once the flag has arrived (its buffer is free), so each step pays a
// flag's one-way trip unless the receiver was ready first. A flag's trip is computed on the
// current route (FlowNetwork::message_latency_ps: path latency plus its bytes at the bottleneck),
// not moved as a transfer: a few bytes per step do not load the links, and the flags of a
// 15,488-rank collective then cost no events.
//
// A broken ring (ring_break, decided when the collective begins): when an all-reduce's ring
// (`ring` or `ring_pipelined`) inside one node has a hop whose only route left crosses the node's
// fallback star, the engine either keeps the ring and lets the host forward that hop (`forward`),
// or runs the all-reduce as a star through the host (`star`: every rank writes its buffer to the
// host, the host adds them up, which moves p buffers through its memory copy, and writes the sum
// back to every rank), or (`cost`, the default) picks the one an alpha-beta estimate over the
// current routes says is faster: the ring's 2(p-1) steps each take its slowest hop's latency plus
// bytes/p at that hop's bottleneck rate (the host copy included when the hop is forwarded), the
// star its upload, the host's copy of p buffers and the download.
// The functional mode carries one number per byte through the same schedule, so tests can check
// that every rank ends with the true result.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/common/small_vector.h"
#include "models/interconnect/collectives/collective_params.h"
#include "models/interconnect/collectives/schedule.h"
#include "models/interconnect/network/flow_network.h"

namespace asim {

struct CollectiveRequest {
    CollectiveOp op = CollectiveOp::allreduce;
    CollectiveAlgo algo = CollectiveAlgo::ring;
    std::vector<uint32_t> group;  // die ids; rank i is group[i]
    uint64_t bytes = 0;
    uint32_t root = 0;  // broadcast
    std::vector<uint64_t>
        counts;  // alltoallv: p x p bytes, counts[i * p + j] from rank i to rank j
};

struct CollectiveResult {
    uint32_t id = 0;
    int64_t start_ps = 0;
    int64_t end_ps = 0;
    // Set when a ring hop needed the host (ring_break): the algorithm that ran (ring forwarded
    // over the host, or the host star) and the alpha-beta estimates of both, in ps.
    bool ring_broken = false;
    bool host_star = false;
    int64_t estimate_forward_ps = 0;
    int64_t estimate_star_ps = 0;
};

class CollectiveEngine {
public:
    using Done = std::function<void(const CollectiveResult&)>;

    CollectiveEngine(FlowNetwork& network, CollectiveParams params, bool functional = false);

    // Validates the request (InputError naming what is wrong: dies that do not exist, repeated
    // dies, an algorithm that does not apply) and schedules it at `at_ps`.
    uint32_t start(const CollectiveRequest& request, int64_t at_ps, Done done = {});
    // Runs until every collective finished. Throws SimulationError (the watchdog) when one cannot,
    // listing the ranks that wait and for what.
    void run();
    // The share of collective `id`'s schedule steps its ranks have finished, 0 to 1 (a progress
    // line's measure; costs one pass over the ranks).
    double progress(uint32_t id) const;

    const CollectiveResult& result(uint32_t id) const { return m_colls.at(id)->result; }
    // What rank `rank` of collective `id` moves and reduces, from its schedule (a ring that falls
    // back to the host star later moves the same bytes and reduces none; not reflected here).
    RankTraffic traffic(uint32_t id, uint32_t rank) const {
        return rank_traffic(*m_colls.at(id)->schedule, rank);
    }
    // Time each die spent inside collectives, summed.
    const std::vector<int64_t>& comm_time_ps() const { return m_comm_time; }
    // Functional mode: the buffer of `rank` of collective `id`, and the value byte i of rank r
    // starts with.
    const std::vector<double>& buffer(uint32_t id, uint32_t rank) const {
        return m_colls.at(id)->buffers.at(rank);
    }
    static double initial_value(uint32_t rank, uint64_t byte) {
        return static_cast<double>((rank + 1) * 16 + byte % 13);
    }

private:
    static constexpr uint32_t kNone = ~uint32_t{0};
    // A message a rank sends to one peer: waiting in the rank's queue to that peer, or in flight.
    // Messages are pooled per collective and linked through `next` (no allocation per message;
    // the delivery callback carries the message's index, so it fits std::function's inline
    // storage).
    // One cache line each (a delivery warms it).
    struct alignas(64) Message {
        SendOp op;
        uint32_t from = 0;
        uint32_t link = 0;  // the sender's PeerLink for op.peer (an index into its table)
        uint32_t next = kNone;
    };
    // A receiver's ready flag for the sender's message of step tag `tag`, and when it arrives.
    struct Flag {
        uint32_t tag;
        int64_t at_ps;
    };
    // What a rank keeps about one peer, in one place: its messages to the peer (one in flight at
    // a time, the others waiting in order), the peer's ready flags for them (in the order they
    // were posted), and the tags of the peer's messages that have arrived here and not yet been
    // consumed by a step. A rank talks to a handful of peers (2 in a ring, 4 in the hierarchical
    // all-reduce): the table is searched from the front.
    struct PeerLink {
        uint32_t peer = 0;
        uint32_t head = kNone, tail = kNone;  // waiting messages
        uint32_t flying = kNone;              // the message in flight
        SmallVector<Flag, 1> ready;
        SmallVector<uint32_t, 2> arrived;
        bool has_arrived(uint32_t tag) const {
            return std::find(arrived.begin(), arrived.end(), tag) != arrived.end();
        }
    };
    // A rank with more peers than this (all-to-all, the mesh) also indexes its table by peer.
    static constexpr std::size_t kIndexPeersFrom = 16;
    // Aligned so that what every message reads (the counters, the flag trip, the peer list
    // searched for a link) is one cache line; the links and the current step follow.
    struct alignas(64) RankState {
        uint32_t step = 0;
        uint32_t outstanding = 0;
        bool busy = false;     // reducing
        bool reduced = false;  // the current step's reduction is done
        bool finished = false;
        bool have_step = false;
        // The last ready flag's trip, to `trip_peer`, valid while the routes are those of
        // `trip_epoch` (FlowNetwork::route_epoch): a rank waits on the same sender step after step.
        uint32_t trip_peer = kNone;
        uint64_t trip_epoch = 0;
        int64_t trip_ps = 0;
        SmallVector<uint32_t, 4> peers;  // links[i].peer, searched from the front
        // The first 64 bytes end here; the step's receives are the next line (a delivery
        // checks them). by_peer: the link per peer rank, once there are more than
        // kIndexPeersFrom (link_to makes it).
        Step current;
        std::unique_ptr<std::vector<uint32_t>> by_peer;
        SmallVector<PeerLink, 4> links;
    };
    struct Collective {
        CollectiveRequest request;
        std::unique_ptr<Schedule> schedule;
        std::vector<RankState> ranks;
        std::vector<Message> messages;              // the pool
        uint32_t free_message = kNone;              // its free list, linked through Message::next
        std::vector<std::vector<double>> payloads;  // functional mode: per pooled message
        std::vector<std::vector<double>> buffers;
        std::vector<std::vector<double>>
            send_buffers;  // all-to-all: the input, apart from the output
        Done done;
        CollectiveResult result;
        uint32_t ranks_done = 0;
        bool finished = false;
        uint32_t star_uploads = 0;  // host star: buffers the host has received
    };

    void begin(uint32_t id);
    void advance(uint32_t id, uint32_t rank);
    void finish_rank(uint32_t id, uint32_t rank);
    // ring_break: decides between the forwarded ring and the host star (fills the result's fields).
    void decide_ring_break(Collective& c);
    void run_host_star(uint32_t id);
    void send(uint32_t id, uint32_t rank, const SendOp& op);
    // Sends the first message waiting on rank's link `link` (once its ready flag is there).
    void transmit(uint32_t id, uint32_t rank, uint32_t link);
    void delivered(uint32_t id, uint32_t message);
    // The index of rank's link to `peer`: -1 when it has none (find_link), made when it has none
    // (link_to).
    static int64_t find_link(const RankState& s, uint32_t peer);
    uint32_t link_to(Collective& c, RankState& s, uint32_t peer);
    // notify: `rank` is ready for the step's receives; flags go to their senders.
    void post_ready(uint32_t id, uint32_t rank, const Step& step);

    FlowNetwork& m_net;
    CollectiveParams m_params;
    bool m_functional;
    std::vector<std::unique_ptr<Collective>> m_colls;
    std::vector<int64_t> m_comm_time;
};

}  // namespace asim
