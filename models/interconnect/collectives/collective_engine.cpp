#include "models/interconnect/collectives/collective_engine.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "models/common/errors.h"

namespace asim {

namespace {
// A transfer's label for watchdog reports (decoded by the labeler the constructor sets).
uint64_t transfer_label(uint32_t id, uint32_t rank, uint32_t peer) {
    return (static_cast<uint64_t>(id) << 48) | (static_cast<uint64_t>(rank) << 24) | peer;
}
}  // namespace

CollectiveEngine::CollectiveEngine(FlowNetwork& network, CollectiveParams params, bool functional)
    : m_net(network),
      m_params(params),
      m_functional(functional),
      m_comm_time(network.topology().dies(), 0) {
    m_net.set_labeler([this](uint64_t key) {
        const uint32_t id = static_cast<uint32_t>(key >> 48);
        const uint32_t rank = static_cast<uint32_t>((key >> 24) & 0xFFFFFF),
                       peer = static_cast<uint32_t>(key & 0xFFFFFF);
        return fmt::format("{} #{} rank {} -> rank {}",
                           id < m_colls.size() ? to_string(m_colls[id]->request.op) : "?", id, rank,
                           peer);
    });
}

uint32_t CollectiveEngine::start(const CollectiveRequest& request, int64_t at_ps, Done done) {
    const Topology& topo = m_net.topology();
    if (request.group.empty()) throw InputError("collective: the group is empty");
    std::vector<char> seen(topo.dies(), 0);
    for (uint32_t d : request.group) {
        if (d >= topo.dies())
            throw InputError(
                fmt::format("collective group names die {}, which does not exist (dies 0..{})", d,
                            topo.dies() - 1));
        if (seen[d]++) throw InputError(fmt::format("collective group names die {} twice", d));
    }
    ScheduleShape shape;
    shape.op = request.op;
    shape.algo = request.algo;
    shape.ranks = static_cast<uint32_t>(request.group.size());
    shape.bytes = request.bytes;
    shape.chunk_bytes = m_params.chunk_bytes;
    shape.root = request.root;
    shape.counts = request.counts;
    if (request.algo == CollectiveAlgo::hierarchical) {
        // Ranks must come node by node, the same number from each node.
        uint32_t g = 0;
        while (g < shape.ranks && topo.node_of(request.group[g]) == topo.node_of(request.group[0]))
            ++g;
        for (uint32_t i = 0; i < shape.ranks; ++i) {
            if (topo.node_of(request.group[i]) != topo.node_of(request.group[i / g * g]) ||
                (i % g == 0 && i > 0 &&
                 topo.node_of(request.group[i]) == topo.node_of(request.group[i - 1])) ||
                shape.ranks % g != 0)
                throw InputError(fmt::format(
                    "hierarchical: the group must list whole nodes of {} dies each, node "
                    "by node (die {} breaks that)",
                    g, request.group[i]));
        }
        shape.ranks_per_node = g;
    }
    auto c = std::make_unique<Collective>();
    c->request = request;
    c->schedule = make_schedule(shape);
    c->ranks.resize(shape.ranks);
    c->done = std::move(done);
    c->result.id = static_cast<uint32_t>(m_colls.size());
    c->result.start_ps = std::max(at_ps, m_net.now_ps());
    if (m_functional) {
        uint64_t buffer = request.bytes;
        if (request.op == CollectiveOp::alltoallv) {
            // Large enough for the longest send row and the longest receive column.
            buffer = 0;
            const uint32_t p = shape.ranks;
            for (uint32_t i = 0; i < p && request.counts.size() == static_cast<std::size_t>(p) * p;
                 ++i) {
                uint64_t row = 0, col = 0;
                for (uint32_t j = 0; j < p; ++j) {
                    row += request.counts[i * p + j];
                    col += request.counts[j * p + i];
                }
                buffer = std::max({buffer, row, col});
            }
        }
        c->buffers.assign(shape.ranks, std::vector<double>(buffer, 0.0));
        for (uint32_t r = 0; r < shape.ranks; ++r) {
            for (uint64_t i = 0; i < buffer; ++i) {
                // All-gather starts with only the rank's own block; the others start with all.
                const bool own =
                    i >= buffer * r / shape.ranks && i < buffer * (r + 1) / shape.ranks;
                if (request.op == CollectiveOp::allgather && !own) continue;
                if (request.op == CollectiveOp::broadcast && r != request.root) continue;
                c->buffers[r][i] = initial_value(r, i);
            }
        }
        // All-to-all reads a send buffer and writes a separate receive buffer.
        if (request.op == CollectiveOp::alltoall || request.op == CollectiveOp::alltoallv)
            c->send_buffers = c->buffers;
    }
    const uint32_t id = c->result.id;
    m_colls.push_back(std::move(c));
    m_net.schedule(m_colls[id]->result.start_ps + m_params.launch_overhead_ps,
                   [this, id] { begin(id); });
    return id;
}

void CollectiveEngine::begin(uint32_t id) {
    Collective& c = *m_colls[id];
    decide_ring_break(c);
    if (c.result.host_star) {
        run_host_star(id);
        return;
    }
    for (uint32_t r = 0; r < c.ranks.size(); ++r) advance(id, r);
}

void CollectiveEngine::decide_ring_break(Collective& c) {
    const CollectiveRequest& rq = c.request;
    const Topology& topo = m_net.topology();
    const auto p = static_cast<uint32_t>(rq.group.size());
    if (rq.op != CollectiveOp::allreduce ||
        (rq.algo != CollectiveAlgo::ring && rq.algo != CollectiveAlgo::ring_pipelined) ||
        !topo.params().has_fallback || p < 2)
        return;
    const uint32_t node = topo.node_of(rq.group[0]);
    for (uint32_t d : rq.group)
        if (topo.node_of(d) != node) return;
    // Time of `bytes` alone on the current route from `src` to `dst` (the network's own rule:
    // path latency plus the bytes at the bottleneck); infinite without a route (the watchdog
    // reports that).
    auto route_s = [&](uint32_t src, uint32_t dst, double bytes) {
        const int64_t ps = m_net.message_latency_ps(
            src, dst, static_cast<uint64_t>(std::ceil(bytes)), LinkOp::write);
        return ps < 0 ? std::numeric_limits<double>::infinity() : static_cast<double>(ps) * 1e-12;
    };
    // Broken: a ring hop whose route crosses the host.
    bool standby = false;
    for (uint32_t i = 0; i < p && !standby; ++i) {
        for (const Path& path : m_net.current_routes(rq.group[i], rq.group[(i + 1) % p]))
            for (uint32_t l : path) standby = standby || is_standby(topo.links()[l].cls);
    }
    if (!standby) return;  // the ring is whole
    const double m = static_cast<double>(rq.bytes), piece = m / p;
    double hop = 0;
    for (uint32_t i = 0; i < p; ++i)
        hop = std::max(hop, route_s(rq.group[i], rq.group[(i + 1) % p], piece));
    // Each step also pays a message's SDMA start-up and, with ready flags, the flag's trip back.
    const double start = static_cast<double>(m_params.sdma_start_ps) * 1e-12;
    double flag = 0;
    if (m_params.notify_bytes > 0) {
        for (uint32_t i = 0; i < p; ++i)
            flag = std::max(flag, route_s(rq.group[(i + 1) % p], rq.group[i],
                                          static_cast<double>(m_params.notify_bytes)));
        flag += static_cast<double>(m_params.notify_overhead_ps) * 1e-12;
    }
    double forward = 2.0 * (p - 1) * (hop + start + flag);
    if (m_params.reduce_bytes_per_s > 0) forward += (p - 1) * piece / m_params.reduce_bytes_per_s;
    const uint32_t rx = topo.host_rx(node), tx = topo.host_tx(node);
    double up = 0, down = 0;
    for (uint32_t d : rq.group) {
        up = std::max(up, route_s(d, rx, m));
        down = std::max(down, route_s(tx, d, m));
    }
    const double star = up + start + route_s(rx, tx, m * p) + start + down;
    c.result.ring_broken = true;
    c.result.estimate_forward_ps = static_cast<int64_t>(std::min(forward * 1e12, 9e18));
    c.result.estimate_star_ps = static_cast<int64_t>(std::min(star * 1e12, 9e18));
    c.result.host_star = m_params.ring_break == RingBreak::star ||
                         (m_params.ring_break == RingBreak::cost && star < forward);
}

void CollectiveEngine::run_host_star(uint32_t id) {
    Collective& c = *m_colls[id];
    const Topology& topo = m_net.topology();
    const uint32_t node = topo.node_of(c.request.group[0]);
    const uint32_t rx = topo.host_rx(node), tx = topo.host_tx(node);
    const auto p = static_cast<uint32_t>(c.ranks.size());
    const uint64_t bytes = c.request.bytes;
    // The host adds p buffers: they cross its memory copy once (saturating: sizes are bounded
    // where traces are read, this only keeps the product from wrapping).
    const uint64_t copied = bytes > UINT64_MAX / p ? UINT64_MAX : bytes * p;
    auto download = [this, id, tx, p, bytes](int64_t) {
        Collective& col = *m_colls[id];
        std::shared_ptr<const std::vector<double>> sum;
        if (m_functional) {
            auto total = std::make_shared<std::vector<double>>(col.buffers[0].size(), 0.0);
            for (const auto& b : col.buffers)
                for (std::size_t i = 0; i < b.size(); ++i) (*total)[i] += b[i];
            sum = std::move(total);
        }
        for (uint32_t r = 0; r < p; ++r) {
            const uint64_t label = transfer_label(id, r, r);
            m_net.start_transfer(
                tx, m_colls[id]->request.group[r], bytes, LinkOp::write, m_net.now_ps(),
                [this, id, r, sum](int64_t) {
                    if (sum) m_colls[id]->buffers[r] = *sum;
                    finish_rank(id, r);
                },
                label, m_params.sdma_start_ps);
        }
    };
    for (uint32_t r = 0; r < p; ++r) {
        const uint64_t label = transfer_label(id, r, r);
        m_net.start_transfer(
            c.request.group[r], rx, bytes, LinkOp::write, m_net.now_ps(),
            [this, id, rx, tx, p, copied, download](int64_t) {
                if (++m_colls[id]->star_uploads < p) return;
                m_net.start_transfer(rx, tx, copied, LinkOp::write, m_net.now_ps(), download,
                                     transfer_label(id, 0, 0));
            },
            label, m_params.sdma_start_ps);
    }
}

void CollectiveEngine::finish_rank(uint32_t id, uint32_t rank) {
    Collective& c = *m_colls[id];
    c.ranks[rank].finished = true;
    m_comm_time[c.request.group[rank]] += m_net.now_ps() - c.result.start_ps;
    if (++c.ranks_done == c.ranks.size()) {
        c.finished = true;
        c.result.end_ps = m_net.now_ps();
        if (c.done) c.done(c.result);
    }
}

void CollectiveEngine::advance(uint32_t id, uint32_t rank) {
    Collective& c = *m_colls[id];
    RankState& s = c.ranks[rank];
    while (!s.busy && !s.finished) {
        if (s.step >= c.schedule->steps(rank)) {
            if (s.outstanding != 0) return;
            finish_rank(id, rank);
            return;
        }
        if (!s.have_step) {
            s.current = c.schedule->step(rank, s.step);
            s.have_step = true;
            if (m_params.notify_bytes > 0) post_ready(id, rank, s.current);
        }
        uint64_t reduce_bytes = 0;
        for (const RecvOp& w : s.current.waits) {
            const int64_t l = find_link(s, w.peer);
            if (l < 0 || !s.links[static_cast<std::size_t>(l)].has_arrived(w.tag)) return;
            if (w.reduce) reduce_bytes += w.bytes;
        }
        if (reduce_bytes > 0 && m_params.reduce_bytes_per_s > 0 && !s.reduced) {
            s.busy = true;
            const auto dt = static_cast<int64_t>(
                std::ceil(static_cast<double>(reduce_bytes) / m_params.reduce_bytes_per_s * 1e12));
            // The timer reads this rank's state and step, then sends; its next step's ready
            // flag goes (on a ring) to the same sender as this one's.
            const FlowNetwork::Warm warm{&s, &s.current, &s.current.sends,
                                         &c.ranks[s.current.waits.front().peer]};
            m_net.schedule(
                m_net.now_ps() + dt,
                [this, id, rank] {
                    RankState& st = m_colls[id]->ranks[rank];
                    st.busy = false;
                    st.reduced = true;
                    advance(id, rank);
                },
                warm);
            return;
        }
        for (const RecvOp& w : s.current.waits) {
            auto& arrived = s.links[static_cast<std::size_t>(find_link(s, w.peer))].arrived;
            const auto it = std::find(arrived.begin(), arrived.end(), w.tag);
            if (it != arrived.end()) arrived.erase(it);
        }
        for (const SendOp& op : s.current.sends) send(id, rank, op);
        ++s.step;
        s.have_step = false;
        s.reduced = false;
    }
}

int64_t CollectiveEngine::find_link(const RankState& s, uint32_t peer) {
    // by_peer exists once there are more peers than kIndexPeersFrom; asking the size keeps the
    // search within the state's first cache line.
    if (s.peers.size() > kIndexPeersFrom) {
        const uint32_t l = (*s.by_peer)[peer];
        return l == kNone ? int64_t{-1} : int64_t{l};
    }
    for (std::size_t i = 0; i < s.peers.size(); ++i)
        if (s.peers[i] == peer) return static_cast<int64_t>(i);
    return -1;
}

uint32_t CollectiveEngine::link_to(Collective& c, RankState& s, uint32_t peer) {
    const int64_t found = find_link(s, peer);
    if (found >= 0) return static_cast<uint32_t>(found);
    const auto l = static_cast<uint32_t>(s.links.size());
    s.links.emplace_back().peer = peer;
    s.peers.push_back(peer);
    if (s.by_peer) {
        (*s.by_peer)[peer] = l;
    } else if (s.links.size() > kIndexPeersFrom) {
        s.by_peer = std::make_unique<std::vector<uint32_t>>(c.ranks.size(), kNone);
        for (uint32_t i = 0; i < s.links.size(); ++i) (*s.by_peer)[s.links[i].peer] = i;
    }
    return l;
}

void CollectiveEngine::send(uint32_t id, uint32_t rank, const SendOp& op) {
    Collective& c = *m_colls[id];
    uint32_t m = c.free_message;
    if (m != kNone) {
        c.free_message = c.messages[m].next;
    } else {
        m = static_cast<uint32_t>(c.messages.size());
        c.messages.emplace_back();
        if (m_functional) c.payloads.emplace_back();
    }
    RankState& s = c.ranks[rank];
    const uint32_t l = link_to(c, s, op.peer);
    c.messages[m] = Message{op, rank, l, kNone};
    if (m_functional) {
        const auto& b = c.send_buffers.empty() ? c.buffers[rank] : c.send_buffers[rank];
        c.payloads[m].assign(b.begin() + static_cast<std::ptrdiff_t>(op.src_offset),
                             b.begin() + static_cast<std::ptrdiff_t>(op.src_offset + op.bytes));
    }
    ++s.outstanding;
    PeerLink& q = s.links[l];
    if (q.tail == kNone) {
        q.head = m;
    } else {
        c.messages[q.tail].next = m;
    }
    q.tail = m;
    if (q.flying == kNone) transmit(id, rank, l);
}

void CollectiveEngine::post_ready(uint32_t id, uint32_t rank, const Step& step) {
    Collective& c = *m_colls[id];
    RankState& me = c.ranks[rank];
    for (const RecvOp& w : step.waits) {
        const uint32_t sender = w.peer;
        int64_t trip;
        if (me.trip_peer == sender && me.trip_epoch == m_net.route_epoch()) {
            trip = me.trip_ps;
        } else {
            trip = m_net.message_latency_ps(c.request.group[rank], c.request.group[sender],
                                            m_params.notify_bytes, LinkOp::write);
            me.trip_peer = sender;
            me.trip_epoch = m_net.route_epoch();
            me.trip_ps = trip;
        }
        if (trip < 0) continue;  // no route: the sender waits, the watchdog names it
        RankState& s = c.ranks[sender];
        const uint32_t l = link_to(c, s, rank);
        PeerLink& q = s.links[l];
        q.ready.push_back({w.tag, m_net.now_ps() + m_params.notify_overhead_ps + trip});
        if (q.flying == kNone) transmit(id, sender, l);
    }
}

void CollectiveEngine::transmit(uint32_t id, uint32_t rank, uint32_t link) {
    Collective& c = *m_colls[id];
    RankState& s = c.ranks[rank];
    PeerLink& q = s.links[link];
    const uint32_t m = q.head;
    if (m == kNone) return;
    const Message& msg = c.messages[m];
    int64_t at = m_net.now_ps();
    if (m_params.notify_bytes > 0) {
        // The receiver's ready flag for this message's step: posted (else wait for it), and the
        // data leaves once it has arrived.
        const uint32_t tag = msg.op.tag;
        const auto flag = std::find_if(q.ready.begin(), q.ready.end(),
                                       [tag](const Flag& f) { return f.tag == tag; });
        if (flag == q.ready.end()) return;
        at = std::max(at, flag->at_ps);
        q.ready.erase(flag);
    }
    q.flying = m;
    q.head = msg.next;
    if (q.head == kNone) q.tail = kNone;
    const uint32_t peer = q.peer;
    const uint32_t src = c.request.group[rank], dst = c.request.group[peer];
    const uint64_t bytes = msg.op.bytes;
    const uint64_t label = transfer_label(id, rank, peer);
    const int64_t start =
        m_params.uses_aiv(c.request.op) ? m_params.aiv_start_ps : m_params.sdma_start_ps;
    // The wait for the flag and the start-up delay the delivery (folded into the transfer).
    // The delivery reads the message, the receiver's state (its counters, then its step's
    // receives), the sender's counters, this link and the sender's step first.
    const FlowNetwork::Warm warm{&c.messages[m], &c.ranks[peer], &c.ranks[peer].current, &s, &q,
                                 &s.current};
    m_net.start_transfer(
        src, dst, bytes, LinkOp::write, m_net.now_ps(),
        [this, id, m](int64_t) { delivered(id, m); }, label, at - m_net.now_ps() + start, warm);
}

void CollectiveEngine::delivered(uint32_t id, uint32_t message) {
    Collective& c = *m_colls[id];
    Message& m = c.messages[message];
    const uint32_t to = m.op.peer, from = m.from, link = m.link;
    if (m_functional) {
        auto& b = c.buffers[to];
        const std::vector<double>& payload = c.payloads[message];
        for (uint64_t i = 0; i < m.op.bytes; ++i) {
            if (m.op.reduce) {
                b[m.op.dst_offset + i] += payload[i];
            } else {
                b[m.op.dst_offset + i] = payload[i];
            }
        }
        c.payloads[message].clear();
    }
    RankState& receiver = c.ranks[to];
    PeerLink& in = receiver.links[link_to(c, receiver, from)];
    if (!in.has_arrived(m.op.tag)) in.arrived.push_back(m.op.tag);
    m.next = c.free_message;
    c.free_message = message;
    RankState& sender = c.ranks[from];
    --sender.outstanding;
    sender.links[link].flying = kNone;
    transmit(id, from, link);
    advance(id, to);
    advance(id, from);
}

double CollectiveEngine::progress(uint32_t id) const {
    const Collective& c = *m_colls.at(id);
    if (c.finished) return 1.0;
    double done = 0, total = 0;
    for (uint32_t r = 0; r < c.ranks.size(); ++r) {
        const double steps = c.schedule ? c.schedule->steps(r) : 0;
        total += steps;
        done += c.ranks[r].finished ? steps : std::min<double>(c.ranks[r].step, steps);
    }
    return total > 0 ? done / total : 0.0;
}

void CollectiveEngine::run() {
    m_net.run();
    for (const auto& c : m_colls) {
        if (c->finished) continue;
        std::string list;
        if (c->result.host_star)
            list = fmt::format("\n  host star through host.n{}: {} of {} buffers at the host",
                               m_net.topology().node_of(c->request.group[0]), c->star_uploads,
                               c->ranks.size());
        int listed = 0;
        for (uint32_t r = 0; r < c->ranks.size() && listed < 10; ++r) {
            const RankState& s = c->ranks[r];
            if (s.finished) continue;
            ++listed;
            list += fmt::format("\n  rank {} (die{}) at step {} of {}", r, c->request.group[r],
                                s.step, c->schedule->steps(r));
            if (s.have_step)
                for (const RecvOp& w : s.current.waits) {
                    const int64_t l = find_link(s, w.peer);
                    if (l < 0 || !s.links[static_cast<std::size_t>(l)].has_arrived(w.tag))
                        list += fmt::format(", waiting for rank {} tag {}", w.peer, w.tag);
                }
        }
        throw SimulationError(
            fmt::format("watchdog: {} #{} on {} dies cannot finish ({} of {} ranks done):{}",
                        to_string(c->request.op), c->result.id, c->ranks.size(), c->ranks_done,
                        c->ranks.size(), list));
    }
}

}  // namespace asim
