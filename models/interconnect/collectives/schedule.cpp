#include "models/interconnect/collectives/schedule.h"
#include "models/common/trace.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "models/common/config.h"
#include "models/common/errors.h"

namespace asim {

namespace {

struct Span {
    uint64_t offset;
    uint64_t bytes;
};

// Piece i of n of a span (the remainder spread over the first pieces' ends).
Span piece(Span s, uint64_t i, uint64_t n) {
    const uint64_t a = s.offset + s.bytes * i / n, b = s.offset + s.bytes * (i + 1) / n;
    return {a, b - a};
}

uint32_t mod(int64_t a, uint32_t m) { return static_cast<uint32_t>(((a % m) + m) % m); }

// ---- Rings: one or two lanes (double ring), each a sequence of phases ---------------------------

enum class Scope { all, intra, inter };

struct RingPhase {
    bool reduce_scatter;  // else all-gather
    int64_t shift;        // RS: sends seg(q + shift - k); AG: holds seg(q + shift) at the start
    Scope scope;
};

struct Lane {
    std::vector<RingPhase> phases;
    bool reversed = false;
    Span range;
};

// Steps are asked for millions of times (a 1 GiB hierarchical all-reduce on 8,192 dies makes
// 16.9 M), so a step costs no 64-bit division: the segment boundaries of every ring are tabled
// when the schedule is made (Cuts: the same products and quotients piece() computes), positions
// on a ring wrap by a compare, and an unpipelined ring (one piece per step) skips the piece split.
class RingSchedule final : public Schedule {
public:
    RingSchedule(uint32_t p, uint32_t g, uint64_t chunks, std::vector<Lane> lanes)
        : m_p(p), m_g(g), m_chunks(std::max<uint64_t>(chunks, 1)), m_lanes(std::move(lanes)) {
        for (const RingPhase& ph : m_lanes.front().phases) m_ring_steps += size(ph.scope) - 1;
        m_cuts.resize(m_lanes.size());
        for (std::size_t lane = 0; lane < m_lanes.size(); ++lane) {
            const Lane& ln = m_lanes[lane];
            for (const RingPhase& ph : ln.phases) {
                std::vector<uint64_t>& cuts = m_cuts[lane][static_cast<std::size_t>(ph.scope)];
                if (!cuts.empty()) continue;
                const uint32_t m = size(ph.scope);
                // The inter-node ring works on the piece the intra-node reduce-scatter left on
                // the rank: one table per position in the node.
                const uint32_t ranges = ph.scope == Scope::inter ? m_g : 1;
                cuts.reserve(static_cast<std::size_t>(ranges) * (m + 1));
                for (uint32_t v = 0; v < ranges; ++v) {
                    const Span range =
                        ph.scope == Scope::inter ? piece(ln.range, v, m_g) : ln.range;
                    for (uint32_t i = 0; i <= m; ++i)
                        cuts.push_back(range.offset + range.bytes * i / m);
                }
            }
        }
    }

    uint32_t steps(uint32_t) const override {
        return m_ring_steps == 0 ? 0 : static_cast<uint32_t>(m_ring_steps * m_chunks + 1);
    }

    Step step(uint32_t r, uint32_t s) const override {
        Step st;
        const uint64_t t = m_chunks == 1 ? s : s / m_chunks, j = m_chunks == 1 ? 0 : s % m_chunks;
        for (uint32_t lane = 0; lane < m_lanes.size(); ++lane) {
            if (t == m_ring_steps) {  // drain: the last ring step's pieces
                for (uint64_t c = 0; c < m_chunks; ++c)
                    st.waits.push_back(recv_of(r, lane, t - 1, c));
                continue;
            }
            if (t > 0) st.waits.push_back(recv_of(r, lane, t - 1, j));
            st.sends.push_back(send_of(r, lane, t, j));
        }
        return st;
    }

private:
    struct Geometry {
        uint32_t q, m, next, prev;
        const uint64_t* cuts;  // the m + 1 segment boundaries of the rank's range
        const RingPhase* phase;
        uint64_t k;  // step within the phase
    };

    uint32_t size(Scope sc) const {
        return sc == Scope::all ? m_p : sc == Scope::intra ? m_g : m_p / m_g;
    }

    // a mod m for a in (-2m, 2m) without a division (the ring's positions and segments); any
    // other a the slow way.
    static uint32_t wrap(int64_t a, uint32_t m) {
        const auto mm = static_cast<int64_t>(m);
        if (a < 0) a += mm;
        if (a >= mm) a -= mm;
        return a >= 0 && a < mm ? static_cast<uint32_t>(a) : mod(a, m);
    }

    Geometry geometry(uint32_t r, uint32_t lane, uint64_t t) const {
        const Lane& ln = m_lanes[lane];
        std::size_t i = 0;
        while (t >= size(ln.phases[i].scope) - 1) t -= size(ln.phases[i++].scope) - 1;
        const RingPhase& ph = ln.phases[i];
        Geometry g{};
        g.phase = &ph;
        g.k = t;
        g.m = size(ph.scope);
        uint32_t base = 0, stride = 1, natural = r, range = 0;
        if (ph.scope == Scope::intra) {
            natural = r % m_g;
            base = r - natural;
        } else if (ph.scope == Scope::inter) {
            base = r % m_g;
            stride = m_g;
            natural = r / m_g;
            range = base + 1 == m_g ? 0 : base + 1;
        }
        const uint32_t m = g.m;
        g.q = ln.reversed ? (natural == 0 ? 0 : m - natural) : natural;
        auto rank_at = [&](uint32_t pos) {  // pos < 2m
            const uint32_t at = pos >= m ? pos - m : pos;
            const uint32_t nat = ln.reversed ? (at == 0 ? 0 : m - at) : at;
            return base + nat * stride;
        };
        g.next = rank_at(g.q + 1);
        g.prev = rank_at(g.q + m - 1);
        g.cuts = m_cuts[lane][static_cast<std::size_t>(ph.scope)].data() +
                 static_cast<std::size_t>(range) * (m + 1);
        return g;
    }

    // Segment `seg` of the rank's range, or piece j of it on a pipelined ring.
    Span segment(const Geometry& g, uint32_t seg, uint64_t j) const {
        const Span whole{g.cuts[seg], g.cuts[seg + 1] - g.cuts[seg]};
        return m_chunks == 1 ? whole : piece(whole, j, m_chunks);
    }

    SendOp send_of(uint32_t r, uint32_t lane, uint64_t t, uint64_t j) const {
        const Geometry g = geometry(r, lane, t);
        const Span c = segment(
            g, wrap(static_cast<int64_t>(g.q) + g.phase->shift - static_cast<int64_t>(g.k), g.m),
            j);
        return {g.next, tag(t, j, lane), c.offset, c.offset, c.bytes, g.phase->reduce_scatter};
    }

    RecvOp recv_of(uint32_t r, uint32_t lane, uint64_t t, uint64_t j) const {
        const Geometry g = geometry(r, lane, t);
        const Span c = segment(
            g,
            wrap(static_cast<int64_t>(g.q) - 1 + g.phase->shift - static_cast<int64_t>(g.k), g.m),
            j);
        return {g.prev, tag(t, j, lane), c.bytes, g.phase->reduce_scatter};
    }

    uint32_t tag(uint64_t t, uint64_t j, uint32_t lane) const {
        return static_cast<uint32_t>((t * m_chunks + j) * 2 + lane);
    }

    uint32_t m_p, m_g;
    uint64_t m_chunks;
    std::vector<Lane> m_lanes;
    uint64_t m_ring_steps = 0;
    // Per lane and scope (all, intra, inter): the segment boundaries, cuts[i] = offset +
    // bytes * i / m for i = 0..m (inter: one such table per position in the node).
    std::vector<std::array<std::vector<uint64_t>, 3>> m_cuts;
};

// ---- Recursive halving-doubling all-reduce
// -------------------------------------------------------- Ranks beyond the largest power of two p'
// first hand their buffer to rank r - p' and get the result back at the end (the extra traffic
// HCCL's H-D_R has when p is not a power of two).
class HalvingDoubling final : public Schedule {
public:
    HalvingDoubling(uint32_t p, uint64_t bytes) : m_p(p), m_bytes(bytes) {
        m_core = 1;
        while (m_core * 2 <= p) m_core *= 2;
        while ((1u << m_log) < m_core) ++m_log;
    }
    uint32_t steps(uint32_t r) const override {
        if (m_p == 1) return 0;
        return r >= m_core ? 2 : 2 * m_log + 2;
    }
    Step step(uint32_t r, uint32_t s) const override {
        Step st;
        const uint32_t extras = m_p - m_core, final_tag = 2 * m_log + 1;
        if (r >= m_core) {
            if (s == 0) st.sends.push_back({r - m_core, 0, 0, 0, m_bytes, true});
            if (s == 1) st.waits.push_back({r - m_core, final_tag, m_bytes, false});
            return st;
        }
        if (s == 0) return st;  // core ranks: the extras' hand-over arrives during step 0
        // Ranges: held[i] = the span kept after halving step i (held[0] = the whole buffer).
        std::vector<Span> held{{0, m_bytes}};
        std::vector<Span> sent;
        for (uint32_t i = 1; i <= m_log; ++i) {
            const uint32_t d = m_core >> i;
            const Span h = held.back();
            const Span lower{h.offset, h.bytes / 2},
                upper{h.offset + h.bytes / 2, h.bytes - h.bytes / 2};
            const bool keep_lower = (r & d) == 0;
            held.push_back(keep_lower ? lower : upper);
            sent.push_back(keep_lower ? upper : lower);
        }
        // What arrived during step s - 1 (waited for at step s).
        auto arrival = [&](uint32_t t) -> RecvOp {
            if (t == 0) return {r + m_core, 0, m_bytes, true};
            if (t <= m_log) return {r ^ (m_core >> t), t, held[t].bytes, true};
            const uint32_t j = t - m_log;  // doubling step j: distance 2^(j-1), receives the
                                           // sibling of held[m_log - j + 1]
            const uint32_t d = 1u << (j - 1);
            const Span mine = held[m_log - j + 1];
            const Span parent = held[m_log - j];
            const Span sibling = mine.offset == parent.offset
                                     ? Span{parent.offset + mine.bytes, parent.bytes - mine.bytes}
                                     : Span{parent.offset, parent.bytes - mine.bytes};
            return {r ^ d, t, sibling.bytes, false};
        };
        if (s - 1 > 0 || r < extras) st.waits.push_back(arrival(s - 1));
        if (s <= m_log) {
            const Span out = sent[s - 1];
            st.sends.push_back({r ^ (m_core >> s), s, out.offset, out.offset, out.bytes, true});
        } else if (s <= 2 * m_log) {
            const uint32_t j = s - m_log;
            const Span mine = held[m_log - j + 1];
            st.sends.push_back(
                {r ^ (1u << (j - 1)), s, mine.offset, mine.offset, mine.bytes, false});
        } else if (r < extras) {
            st.sends.push_back({r + m_core, final_tag, 0, 0, m_bytes, false});
        }
        return st;
    }

private:
    uint32_t m_p;
    uint64_t m_bytes;
    uint32_t m_core = 1, m_log = 0;
};

// ---- All-to-all blocks: uniform (bytes / p each) or from a counts matrix (all-to-all-v)
// ------------
class AllToAllBlocks {
public:
    AllToAllBlocks(uint32_t p, uint64_t bytes, const std::vector<uint64_t>& counts)
        : m_p(p), m_block(bytes / p), m_counts(counts) {
        if (m_counts.empty()) return;
        m_send_offset.assign(static_cast<std::size_t>(p) * p, 0);
        m_recv_offset.assign(static_cast<std::size_t>(p) * p, 0);
        for (uint32_t i = 0; i < p; ++i)
            for (uint32_t j = 1; j < p; ++j) {
                m_send_offset[i * p + j] = m_send_offset[i * p + j - 1] + m_counts[i * p + j - 1];
                m_recv_offset[i * p + j] = m_recv_offset[i * p + j - 1] + m_counts[(j - 1) * p + i];
            }
    }
    uint64_t size(uint32_t from, uint32_t to) const {
        return m_counts.empty() ? m_block : m_counts[from * m_p + to];
    }
    // Where the block from `from` to `to` sits in the sender's and in the receiver's buffer.
    uint64_t send_offset(uint32_t from, uint32_t to) const {
        return m_counts.empty() ? to * m_block : m_send_offset[from * m_p + to];
    }
    uint64_t recv_offset(uint32_t from, uint32_t to) const {
        return m_counts.empty() ? from * m_block : m_recv_offset[to * m_p + from];
    }
    SendOp send(uint32_t from, uint32_t to, uint32_t tag) const {
        return {to, tag, send_offset(from, to), recv_offset(from, to), size(from, to), false};
    }

private:
    uint32_t m_p;
    uint64_t m_block;
    std::vector<uint64_t> m_counts;
    std::vector<uint64_t> m_send_offset,
        m_recv_offset;  // [sender * p + peer], [receiver * p + sender]
};

// ---- Mesh (all peers at once): all-reduce, reduce-scatter, all-gather, all-to-all direct
// ------------
class MeshSchedule final : public Schedule {
public:
    MeshSchedule(CollectiveOp op, uint32_t p, uint64_t bytes,
                 const std::vector<uint64_t>& counts = {})
        : m_op(op), m_p(p), m_bytes(bytes), m_blocks(p, bytes, counts) {}
    uint32_t steps(uint32_t) const override {
        if (m_p == 1) return 0;
        return m_op == CollectiveOp::allreduce ? 3 : 2;
    }
    Step step(uint32_t r, uint32_t s) const override {
        Step st;
        const Span whole{0, m_bytes};
        const Span own = piece(whole, r, m_p);
        for (uint32_t peer = 0; peer < m_p; ++peer) {
            if (peer == r) continue;
            const Span theirs = piece(whole, peer, m_p);
            switch (m_op) {
                case CollectiveOp::allreduce:
                    if (s == 0)
                        st.sends.push_back(
                            {peer, 0, theirs.offset, theirs.offset, theirs.bytes, true});
                    if (s == 1) {
                        st.waits.push_back({peer, 0, own.bytes, true});
                        st.sends.push_back({peer, 1, own.offset, own.offset, own.bytes, false});
                    }
                    if (s == 2) st.waits.push_back({peer, 1, theirs.bytes, false});
                    break;
                case CollectiveOp::reducescatter:
                    if (s == 0)
                        st.sends.push_back(
                            {peer, 0, theirs.offset, theirs.offset, theirs.bytes, true});
                    if (s == 1) st.waits.push_back({peer, 0, own.bytes, true});
                    break;
                case CollectiveOp::allgather:
                    if (s == 0)
                        st.sends.push_back({peer, 0, own.offset, own.offset, own.bytes, false});
                    if (s == 1) st.waits.push_back({peer, 0, theirs.bytes, false});
                    break;
                default:  // all-to-all(v): my block for `peer` goes to its slot for me
                    if (s == 0) st.sends.push_back(m_blocks.send(r, peer, 0));
                    if (s == 1) st.waits.push_back({peer, 0, m_blocks.size(peer, r), false});
            }
        }
        return st;
    }

private:
    CollectiveOp m_op;
    uint32_t m_p;
    uint64_t m_bytes;
    AllToAllBlocks m_blocks;
};

// ---- All-to-all pairwise: step k exchanges with r + k and r - k
// -----------------------------------
class Pairwise final : public Schedule {
public:
    Pairwise(uint32_t p, uint64_t bytes, const std::vector<uint64_t>& counts)
        : m_p(p), m_blocks(p, bytes, counts) {}
    uint32_t steps(uint32_t) const override { return m_p == 1 ? 0 : m_p + 1; }
    Step step(uint32_t r, uint32_t s) const override {
        Step st;
        if (s >= 2) {
            const uint32_t from = (r + m_p - (s - 1)) % m_p;
            st.waits.push_back({from, s - 1, m_blocks.size(from, r), false});
        }
        if (s >= 1 && s < m_p) st.sends.push_back(m_blocks.send(r, (r + s) % m_p, s));
        return st;
    }

private:
    uint32_t m_p;
    AllToAllBlocks m_blocks;
};

// ---- Broadcast: a chain from the root in pieces (ring / ring_pipelined), or the root to all
// (mesh) -
class Broadcast final : public Schedule {
public:
    Broadcast(uint32_t p, uint64_t bytes, uint32_t root, uint64_t chunks, bool mesh)
        : m_p(p),
          m_bytes(bytes),
          m_root(root),
          m_chunks(std::max<uint64_t>(chunks, 1)),
          m_mesh(mesh) {}
    uint32_t steps(uint32_t) const override {
        if (m_p == 1) return 0;
        return m_mesh ? 1 : static_cast<uint32_t>(m_chunks);
    }
    Step step(uint32_t r, uint32_t s) const override {
        Step st;
        const uint32_t q = (r + m_p - m_root) % m_p;
        if (m_mesh) {
            for (uint32_t peer = 0; peer < m_p; ++peer) {
                if (peer == r) continue;
                if (q == 0) st.sends.push_back({peer, 0, 0, 0, m_bytes, false});
                if (peer == m_root) st.waits.push_back({peer, 0, m_bytes, false});
            }
            return st;
        }
        // Chain: piece s is forwarded as soon as it has arrived.
        const Span c = piece({0, m_bytes}, s, m_chunks);
        if (q > 0) st.waits.push_back({(r + m_p - 1) % m_p, s, c.bytes, false});
        if (q + 1 < m_p) st.sends.push_back({(r + 1) % m_p, s, c.offset, c.offset, c.bytes, false});
        return st;
    }

private:
    uint32_t m_p;
    uint64_t m_bytes;
    uint32_t m_root;
    uint64_t m_chunks;
    bool m_mesh;
};

class SendRecv final : public Schedule {
public:
    explicit SendRecv(uint64_t bytes) : m_bytes(bytes) {}
    uint32_t steps(uint32_t) const override { return 1; }
    Step step(uint32_t r, uint32_t) const override {
        Step st;
        if (r == 0) st.sends.push_back({1, 0, 0, 0, m_bytes, false});
        if (r == 1) st.waits.push_back({0, 0, m_bytes, false});
        return st;
    }

private:
    uint64_t m_bytes;
};

const std::vector<std::pair<CollectiveOp, const char*>> kOps = {
    {CollectiveOp::allreduce, "allreduce"},
    {CollectiveOp::allgather, "allgather"},
    {CollectiveOp::reducescatter, "reducescatter"},
    {CollectiveOp::alltoall, "alltoall"},
    {CollectiveOp::alltoallv, "alltoallv"},
    {CollectiveOp::broadcast, "broadcast"},
    {CollectiveOp::sendrecv, "sendrecv"}};
// The algorithm an op uses when none is named.
CollectiveAlgo default_algorithm(CollectiveOp op) {
    switch (op) {
        case CollectiveOp::alltoall:
        case CollectiveOp::alltoallv:
            return CollectiveAlgo::pairwise;
        case CollectiveOp::broadcast:
            return CollectiveAlgo::ring_pipelined;
        case CollectiveOp::sendrecv:
            return CollectiveAlgo::direct;
        default:
            return CollectiveAlgo::ring;
    }
}

template <class E>
E parse_name(const std::vector<std::pair<E, const char*>>& table, const std::string& s,
             const char* what) {
    std::vector<std::string> names;
    for (const auto& [v, n] : table) {
        if (s == n) return v;
        names.push_back(n);
    }
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    const std::string near = closest_match(s, names);
    throw InputError(fmt::format("unknown {} '{}' (choices: {}){}", what, s, list,
                                 near.empty() ? "" : "; did you mean '" + near + "'?"));
}

}  // namespace

const char* to_string(CollectiveOp op) {
    for (const auto& [v, n] : kOps)
        if (v == op) return n;
    return "?";
}

const char* to_string(CollectiveAlgo a) { return a.name(); }

std::vector<std::string> collective_op_names() {
    std::vector<std::string> names;
    for (const auto& [v, n] : kOps) names.emplace_back(n);
    return names;
}

std::vector<std::string> collective_algo_names() { return collective_algorithm_registry().names(); }

CollectiveOp parse_collective_op(const std::string& s) { return parse_name(kOps, s, "collective"); }

CollectiveAlgo parse_collective_algo(const std::string& s) {
    if (const auto* e = collective_algorithm_registry().find(s))
        return CollectiveAlgo(e->name.c_str());
    const std::vector<std::string> names = collective_algo_names();
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    const std::string near = closest_match(s, names);
    throw InputError(fmt::format("unknown algorithm '{}' (choices: {}){}", s, list,
                                 near.empty() ? "" : "; did you mean '" + near + "'?"));
}

std::vector<CollectiveAlgo> algorithms_for(CollectiveOp op) {
    const CollectiveAlgo first = default_algorithm(op);
    std::vector<CollectiveAlgo> out;
    if (const auto* e = collective_algorithm_registry().find(first.name())) {
        if (std::find(e->ops.begin(), e->ops.end(), op) != e->ops.end()) out.push_back(first);
    }
    for (const auto& impl : collective_algorithm_registry().implementations()) {
        const auto* e = collective_algorithm_registry().find(impl.name);
        if (e->name == first.name() || std::find(e->ops.begin(), e->ops.end(), op) == e->ops.end())
            continue;
        out.emplace_back(e->name.c_str());
    }
    return out;
}

RankTraffic rank_traffic(const Schedule& schedule, uint32_t rank) {
    RankTraffic t;
    for (uint32_t i = 0; i < schedule.steps(rank); ++i) {
        const Step step = schedule.step(rank, i);
        for (const SendOp& op : step.sends) t.sent += op.bytes;
        for (const RecvOp& w : step.waits) {
            t.received += w.bytes;
            if (w.reduce) t.reduced += w.bytes;
        }
    }
    return t;
}

std::unique_ptr<Schedule> make_schedule(const ScheduleShape& s) {
    const auto ok = algorithms_for(s.op);
    if (std::find(ok.begin(), ok.end(), s.algo) == ok.end()) {
        std::string list;
        for (auto a : ok) list += (list.empty() ? "" : ", ") + std::string(to_string(a));
        throw InputError(fmt::format("algorithm {} does not apply to {} (choices: {})",
                                     to_string(s.algo), to_string(s.op), list));
    }
    if (s.ranks == 0) throw InputError("a collective needs at least one rank");
    // Byte counts past 2^60 wrap the 64-bit arithmetic of the steps (p x bytes, sums of counts)
    // and come out as impossibly short or negative times: refused wherever a request comes from.
    if (s.bytes > trace::kMaxOpWork) {
        throw InputError(fmt::format(
            "a collective of {} bytes: more than 2^60, the most one collective may move", s.bytes));
    }
    if (s.op == CollectiveOp::alltoallv) {
        uint64_t total = 0;
        for (uint64_t c : s.counts) {
            if (__builtin_add_overflow(total, c, &total) || total > trace::kMaxOpWork) {
                throw InputError(
                    "alltoallv counts add up to more than 2^60 bytes, the most one collective may "
                    "move");
            }
        }
    }
    const CollectiveAlgorithmRegistry::Entry* entry =
        collective_algorithm_registry().find(s.algo.name());
    if (!entry) throw InputError(fmt::format("unknown algorithm '{}'", s.algo.name()));
    if (s.op == CollectiveOp::alltoallv &&
        s.counts.size() != static_cast<std::size_t>(s.ranks) * s.ranks) {
        throw InputError(fmt::format("alltoallv needs {} x {} counts, got {}", s.ranks, s.ranks,
                                     s.counts.size()));
    }
    if (s.op == CollectiveOp::broadcast && s.root >= s.ranks) {
        throw InputError(
            fmt::format("broadcast root {} is not in the group of {}", s.root, s.ranks));
    }
    return entry->make(s);
}

// ---- The built-in algorithms --------------------------------------------------------------

namespace {

// The ring phases of an op: reduce-scatter then all-gather for an all-reduce, one of them alone
// for the others.
std::vector<RingPhase> ring_phases(CollectiveOp op) {
    const RingPhase rs_ar{true, 0, Scope::all}, ag_ar{false, 1, Scope::all};
    const RingPhase rs_own{true, -1, Scope::all}, ag_own{false, 0, Scope::all};
    switch (op) {
        case CollectiveOp::allreduce:
            return {rs_ar, ag_ar};
        case CollectiveOp::reducescatter:
            return {rs_own};
        default:
            return {ag_own};
    }
}

// A ring in pieces of `chunk_bytes` (1 piece per step without), or a broadcast along it.
std::unique_ptr<Schedule> ring_schedule(const ScheduleShape& s, bool pipelined) {
    const uint32_t p = s.ranks;
    if (s.op == CollectiveOp::broadcast) {
        const uint64_t chunks =
            pipelined && s.chunk_bytes > 0
                ? std::max<uint64_t>(1, (s.bytes + s.chunk_bytes - 1) / s.chunk_bytes)
                : 1;
        return std::make_unique<Broadcast>(p, s.bytes, s.root, chunks, false);
    }
    const uint64_t per_step = std::max<uint64_t>(1, s.bytes / p);
    const uint64_t chunks =
        pipelined && s.chunk_bytes > 0 ? (per_step + s.chunk_bytes - 1) / s.chunk_bytes : 1;
    return std::make_unique<RingSchedule>(
        p, 1, chunks, std::vector<Lane>{{ring_phases(s.op), false, Span{0, s.bytes}}});
}

std::unique_ptr<Schedule> all_to_all(const ScheduleShape& s, bool pairwise) {
    const std::vector<uint64_t> none;
    const std::vector<uint64_t>& counts = s.op == CollectiveOp::alltoallv ? s.counts : none;
    if (pairwise) return std::make_unique<Pairwise>(s.ranks, s.bytes, counts);
    return std::make_unique<MeshSchedule>(CollectiveOp::alltoall, s.ranks, s.bytes, counts);
}

using Op = CollectiveOp;

}  // namespace

bool CollectiveAlgorithmRegistry::add(Entry entry) {
    const std::string name = entry.name;
    if (!m_entries.emplace(name, std::move(entry)).second) {
        throw std::logic_error("collective algorithm '" + name + "' registered twice");
    }
    return true;
}

const CollectiveAlgorithmRegistry::Entry* CollectiveAlgorithmRegistry::find(
    const std::string& name) const {
    const auto it = m_entries.find(name);
    return it == m_entries.end() ? nullptr : &it->second;
}

std::vector<RegistryBase::Implementation> CollectiveAlgorithmRegistry::implementations() const {
    static const std::vector<Param> kNoParams;
    std::vector<Implementation> out;
    for (const auto& [name, e] : m_entries) out.push_back({name, e.description, &kNoParams});
    return out;
}

CollectiveAlgorithmRegistry& collective_algorithm_registry() {
    static CollectiveAlgorithmRegistry registry;
    return registry;
}

ASIM_REGISTER(collective_algorithm_registry(), ring,
              "a ring: reduce-scatter then all-gather in p - 1 steps each (or forwarded along it)",
              {Op::allreduce, Op::allgather, Op::reducescatter, Op::broadcast},
              [](const ScheduleShape& s) { return ring_schedule(s, false); });
ASIM_REGISTER(collective_algorithm_registry(), ring_pipelined,
              "a ring in pieces of network.collectives.chunk, each forwarded as it arrives",
              {Op::allreduce, Op::allgather, Op::reducescatter, Op::broadcast},
              [](const ScheduleShape& s) { return ring_schedule(s, true); });
ASIM_REGISTER(collective_algorithm_registry(), halving_doubling,
              "recursive halving (reduce-scatter) and doubling (all-gather), log2 p steps each",
              {Op::allreduce}, [](const ScheduleShape& s) {
                  return std::make_unique<HalvingDoubling>(s.ranks, s.bytes);
              });
ASIM_REGISTER(collective_algorithm_registry(), mesh,
              "every rank sends its share to every other at once (full mesh)",
              {Op::allreduce, Op::allgather, Op::reducescatter, Op::broadcast},
              [](const ScheduleShape& s) -> std::unique_ptr<Schedule> {
                  if (s.op == Op::broadcast) {
                      return std::make_unique<Broadcast>(s.ranks, s.bytes, s.root, 1, true);
                  }
                  return std::make_unique<MeshSchedule>(s.op, s.ranks, s.bytes);
              });
ASIM_REGISTER(collective_algorithm_registry(), double_ring,
              "two rings in opposite directions, each on half of the buffer", {Op::allreduce},
              [](const ScheduleShape& s) {
                  const Span whole{0, s.bytes};
                  const auto phases = ring_phases(s.op);
                  return std::make_unique<RingSchedule>(
                      s.ranks, 1, 1,
                      std::vector<Lane>{{phases, false, piece(whole, 0, 2)},
                                        {phases, true, piece(whole, 1, 2)}});
              });
ASIM_REGISTER(collective_algorithm_registry(), hierarchical,
              "reduce-scatter inside each node, all-reduce across nodes, all-gather inside",
              {Op::allreduce}, [](const ScheduleShape& s) {
                  const uint32_t g = s.ranks_per_node;
                  if (g == 0 || s.ranks % g != 0) {
                      throw InputError(fmt::format(
                          "hierarchical: {} ranks do not split into nodes of {}", s.ranks, g));
                  }
                  Lane lane{{{true, 0, Scope::intra},
                             {true, 0, Scope::inter},
                             {false, 1, Scope::inter},
                             {false, 1, Scope::intra}},
                            false,
                            Span{0, s.bytes}};
                  return std::make_unique<RingSchedule>(s.ranks, g, 1, std::vector<Lane>{lane});
              });
ASIM_REGISTER(collective_algorithm_registry(), direct,
              "every block straight to its peer at once (all-to-all), or one send (sendrecv)",
              {Op::alltoall, Op::alltoallv, Op::sendrecv},
              [](const ScheduleShape& s) -> std::unique_ptr<Schedule> {
                  if (s.op == Op::sendrecv) {
                      if (s.ranks != 2)
                          throw InputError("sendrecv needs a group of exactly 2 dies");
                      return std::make_unique<SendRecv>(s.bytes);
                  }
                  return all_to_all(s, false);
              });
ASIM_REGISTER(collective_algorithm_registry(), pairwise,
              "all-to-all in p - 1 rounds, each rank exchanging with one peer per round",
              {Op::alltoall, Op::alltoallv},
              [](const ScheduleShape& s) { return all_to_all(s, true); });

}  // namespace asim
