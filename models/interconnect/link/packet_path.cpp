#include "models/interconnect/link/packet_path.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <queue>
#include <random>

#include <fmt/format.h>

#include "models/common/errors.h"

namespace asim {

namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
constexpr std::size_t kPoke = 0, kWake = 1;  // the two kinds of try_send event

struct Packet {
    uint64_t payload = 0;
    std::size_t path = 0;
    std::size_t hop = 0;               // link the packet is waiting for / crossing
    bool holds_upstream_slot = false;  // still in the previous link's receive buffer
};

// Sender side of one link: its queue, serialiser and credits.
struct Hop {
    LinkParams link;
    int64_t down_at = kNever;
    std::deque<std::size_t> queue;  // packets waiting to be sent on this link
    int64_t busy_until = 0;
    int64_t credits = 0;
    bool wake_pending = false;
};

enum class EventKind { try_send, arrive, credit_return, nak };

struct Event {
    int64_t time;
    uint64_t seq;
    EventKind kind;
    std::size_t hop;  // flat hop index
    std::size_t packet;
    bool operator>(const Event& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

}  // namespace

PacketPath::PacketPath(std::vector<std::vector<LinkParams>> paths, uint64_t seed)
    : m_paths(std::move(paths)), m_seed(seed) {
    if (m_paths.empty()) throw InputError("packet path: no path given");
    for (const auto& p : m_paths) {
        if (p.empty()) throw InputError("packet path: a path has no link");
        m_down_at.emplace_back(p.size(), kNever);
    }
}

void PacketPath::set_link_down(std::size_t path, std::size_t hop, int64_t at_ps) {
    if (path >= m_paths.size() || hop >= m_paths[path].size())
        throw InputError(fmt::format("packet path: no link {} on path {}", hop, path));
    m_down_at[path][hop] = at_ps;
}

void PacketPath::set_exact_packets(uint64_t packets) {
    m_exact_packets = std::max<uint64_t>(packets, 4 * m_paths.size());
}

PacketTransferResult PacketPath::send(uint64_t bytes, LinkOp op) {
    const uint64_t mtu = m_paths.front().front().mtu_bytes;
    const uint64_t full = bytes / mtu, tail = bytes % mtu;
    const uint64_t count = bytes == 0 ? 1 : full + (tail != 0 ? 1 : 0);
    if (count <= m_exact_packets) return simulate(bytes, op);
    // Two prefixes in the steady state, congruent to the message modulo the paths so that the
    // last packets take the same paths.
    const uint64_t paths = m_paths.size();
    uint64_t k2 = m_exact_packets - 1;
    k2 -= (k2 + paths - full % paths) % paths;
    const uint64_t k1 = k2 - paths * std::max<uint64_t>(1, k2 / (2 * paths));
    const PacketTransferResult r1 = simulate(k1 * mtu + tail, op);
    const PacketTransferResult r2 = simulate(k2 * mtu + tail, op);
    const uint64_t more = full - k2, span = k2 - k1;
    auto extend = [&](auto a, auto b) {
        const __int128 v =
            static_cast<__int128>(b) + static_cast<__int128>(more) *
                                           (static_cast<__int128>(b) - static_cast<__int128>(a)) /
                                           static_cast<__int128>(span);
        return v;
    };
    const __int128 completion = extend(r1.completion_ps, r2.completion_ps);
    if (completion >= static_cast<__int128>(kNever)) {
        throw InputError(fmt::format(
            "a message of {} B takes longer than 2^63 ps (106 days) on this path", bytes));
    }
    PacketTransferResult r;
    r.completion_ps = static_cast<int64_t>(completion);
    r.packets = count;
    r.transmissions = static_cast<uint64_t>(extend(r1.transmissions, r2.transmissions));
    r.retries = static_cast<uint64_t>(extend(r1.retries, r2.retries));
    r.delivered = count;
    r.duplicates = r2.duplicates;
    r.min_credits = std::min(r1.min_credits, r2.min_credits);
    r.max_credit_excess = std::max(r1.max_credit_excess, r2.max_credit_excess);
    r.events = static_cast<uint64_t>(extend(r1.events, r2.events));
    // Every path carries packets until the end: a link that goes down before then stalls it.
    for (std::size_t p = 0; p < m_down_at.size(); ++p) {
        for (std::size_t h = 0; h < m_down_at[p].size(); ++h) {
            if (m_down_at[p][h] < r.completion_ps) {
                throw SimulationError(
                    fmt::format("watchdog: message of {} B stalled: link {} of path {} goes down "
                                "at {} ps, before the message ends (a link is down)",
                                bytes, h, p, m_down_at[p][h]));
            }
        }
    }
    return r;
}

namespace {

// One message's packets over the paths, event by event: the sender side of every link (queue,
// serialiser, credits), arrivals with link errors and their NAKs, and credits flowing back.
class PacketRun {
public:
    PacketRun(const std::vector<std::vector<LinkParams>>& paths,
              const std::vector<std::vector<int64_t>>& down_at, uint64_t bytes, LinkOp op,
              uint64_t seed)
        : m_paths(paths), m_op(op), m_bytes(bytes), m_rng(seed) {
        // Flatten the hops: path p's links occupy [m_first[p], m_first[p] + size).
        for (std::size_t p = 0; p < paths.size(); ++p) {
            m_first.push_back(m_hops.size());
            for (std::size_t h = 0; h < paths[p].size(); ++h) {
                Hop hop;
                hop.link = paths[p][h];
                hop.down_at = down_at[p][h];
                hop.credits = hop.link.buffer_packets;
                m_hops.push_back(std::move(hop));
            }
        }
        m_r.min_credits = kNever;
        m_r.max_credit_excess = std::numeric_limits<int64_t>::min();
        const uint64_t mtu = paths.front().front().mtu_bytes;
        m_count = bytes == 0 ? 1 : (bytes + mtu - 1) / mtu;
        for (uint64_t i = 0; i < m_count; ++i) {
            Packet pk;
            pk.payload = std::min<uint64_t>(mtu, bytes - std::min(bytes, i * mtu));
            pk.path = i % paths.size();
            m_packets.push_back(pk);
            m_hops[m_first[pk.path]].queue.push_back(i);
        }
        m_r.packets = m_count;
        m_arrivals.assign(m_count, 0);
    }

    PacketTransferResult run() {
        for (std::size_t p = 0; p < m_first.size(); ++p)
            post(0, EventKind::try_send, m_first[p], kPoke);
        while (!m_events.empty()) {
            const Event e = m_events.top();
            m_events.pop();
            m_now = e.time;
            ++m_r.events;
            switch (e.kind) {
                case EventKind::try_send:
                    try_send(e);
                    break;
                case EventKind::arrive:
                    arrive(e);
                    break;
                case EventKind::credit_return: {
                    Hop& h = m_hops[e.hop];
                    ++h.credits;
                    observe(h);
                    if (!h.wake_pending) post(m_now, EventKind::try_send, e.hop, kPoke);
                    break;
                }
                case EventKind::nak: {
                    Hop& h = m_hops[e.hop];
                    h.queue.push_front(e.packet);
                    if (!h.wake_pending) post(m_now, EventKind::try_send, e.hop, kPoke);
                    break;
                }
            }
        }
        if (m_r.delivered != m_count) throw_stalled();
        if (m_r.min_credits == kNever) m_r.min_credits = 0;
        return m_r;
    }

private:
    void post(int64_t t, EventKind k, std::size_t hop, std::size_t packet) {
        m_events.push({t, m_seq++, k, hop, packet});
    }
    void observe(const Hop& h) {
        m_r.min_credits = std::min(m_r.min_credits, h.credits);
        m_r.max_credit_excess = std::max(m_r.max_credit_excess,
                                         h.credits - static_cast<int64_t>(h.link.buffer_packets));
        if (h.credits < 0 || h.credits > static_cast<int64_t>(h.link.buffer_packets))
            throw SimulationError(fmt::format("packet path: credit count {} outside [0, {}]",
                                              h.credits, h.link.buffer_packets));
    }
    bool is_last(std::size_t flat) const {
        for (std::size_t p = 0; p < m_first.size(); ++p)
            if (flat == m_first[p] + m_paths[p].size() - 1) return true;
        return false;
    }
    // Two kinds: the hop's own wake-up when its serialiser frees (one pending at most) and pokes
    // from arrivals, credits and NAKs, which never multiply.
    void try_send(const Event& e) {
        Hop& h = m_hops[e.hop];
        if (e.packet == kWake) h.wake_pending = false;
        if (h.queue.empty() || h.credits == 0 || m_now >= h.down_at) return;
        if (m_now < h.busy_until) {
            if (!h.wake_pending) {
                h.wake_pending = true;
                post(h.busy_until, EventKind::try_send, e.hop, kWake);
            }
            return;
        }
        const std::size_t id = h.queue.front();
        h.queue.pop_front();
        --h.credits;
        observe(h);
        ++m_r.transmissions;
        const int64_t wire = h.link.packet_time_ps(m_packets[id].payload, m_op);
        h.busy_until = m_now + wire;
        post(m_now + wire + h.link.propagation_ps, EventKind::arrive, e.hop, id);
        // The slot this packet held upstream frees now: return that link's credit (once: a
        // retried packet is resent from the retry buffer, not from that slot).
        if (m_packets[id].holds_upstream_slot) {
            m_packets[id].holds_upstream_slot = false;
            const std::size_t up = e.hop - 1;
            post(m_now + m_hops[up].link.propagation_ps, EventKind::credit_return, up, 0);
        }
        if (!h.queue.empty() && !h.wake_pending) {
            h.wake_pending = true;
            post(h.busy_until, EventKind::try_send, e.hop, kWake);
        }
    }
    void arrive(const Event& e) {
        const Hop& h = m_hops[e.hop];
        Packet& pk = m_packets[e.packet];
        if (h.link.error_rate > 0 && m_uniform(m_rng) < h.link.error_rate) {
            // Corrupted: the receiver drops it (its slot frees, credit goes back) and NAKs.
            ++m_r.retries;
            post(m_now + h.link.propagation_ps, EventKind::credit_return, e.hop, 0);
            post(m_now + h.link.propagation_ps + h.link.retry_latency_ps, EventKind::nak, e.hop,
                 e.packet);
            return;
        }
        if (is_last(e.hop)) {
            // The endpoint drains at once: free the slot, count the delivery.
            if (m_arrivals[e.packet]++ == 0) {
                ++m_r.delivered;
            } else {
                ++m_r.duplicates;
            }
            m_r.completion_ps = std::max(m_r.completion_ps, m_now + h.link.switch_latency_ps);
            post(m_now + h.link.propagation_ps, EventKind::credit_return, e.hop, 0);
            return;
        }
        pk.hop += 1;
        pk.holds_upstream_slot = true;
        m_hops[e.hop + 1].queue.push_back(e.packet);
        post(m_now + h.link.switch_latency_ps, EventKind::try_send, e.hop + 1, kPoke);
    }
    [[noreturn]] void throw_stalled() const {
        std::string stuck;
        int listed = 0;
        for (std::size_t i = 0; i < m_count && listed < 8; ++i) {
            if (m_arrivals[i] != 0) continue;
            stuck += fmt::format(" packet {} (path {}, link {})", i, m_packets[i].path,
                                 m_packets[i].hop);
            ++listed;
        }
        throw SimulationError(
            fmt::format("watchdog: message of {} B stalled at {} ps, {} of {} packets "
                        "undelivered (a link is down):{}",
                        m_bytes, m_now, m_count - m_r.delivered, m_count, stuck));
    }

    const std::vector<std::vector<LinkParams>>& m_paths;
    LinkOp m_op;
    uint64_t m_bytes;
    uint64_t m_count = 0;
    std::vector<Hop> m_hops;
    std::vector<std::size_t> m_first;
    std::vector<Packet> m_packets;
    std::vector<uint32_t> m_arrivals;  // deliveries per packet
    PacketTransferResult m_r;
    std::mt19937_64 m_rng;
    std::uniform_real_distribution<double> m_uniform{0.0, 1.0};
    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> m_events;
    uint64_t m_seq = 0;
    int64_t m_now = 0;
};

}  // namespace

PacketTransferResult PacketPath::simulate(uint64_t bytes, LinkOp op) {
    return PacketRun(m_paths, m_down_at, bytes, op, m_seed).run();
}

int64_t remote_access_ps(const std::vector<std::vector<LinkParams>>& forward,
                         const std::vector<std::vector<LinkParams>>& reverse, uint64_t bytes,
                         LinkOp op, const RemoteAccessTiming& endpoint, uint64_t seed) {
    // The header-only request or acknowledgement takes one path (the first).
    const std::vector<std::vector<LinkParams>> control_fwd{forward.front()},
        control_rev{reverse.front()};
    if (op == LinkOp::read) {
        const int64_t request = PacketPath(control_fwd, seed).send(0, LinkOp::read).completion_ps;
        const int64_t data = PacketPath(reverse, seed + 1).send(bytes, LinkOp::read).completion_ps;
        return endpoint.issue_overhead_ps + request + endpoint.memory_read_ps + data;
    }
    const int64_t data = PacketPath(forward, seed).send(bytes, LinkOp::write).completion_ps;
    const int64_t ack = PacketPath(control_rev, seed + 1).send(0, LinkOp::write).completion_ps;
    return endpoint.issue_overhead_ps + data + endpoint.memory_write_ps + ack;
}

}  // namespace asim
