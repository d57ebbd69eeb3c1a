// The on-die L2: sliced, set-associative, sectored, write-back write-allocate, partitioned by
// stream class, with MSHRs that merge misses to lines already being fetched, CMO prefetch fills
// and non-allocate hints. See README.md for the timing model and what is approximated.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "models/common/bandwidth_server.h"
#include "models/common/clock_domain.h"
#include "models/common/payload.h"
#include "models/common/stats.h"
#include "models/common/timeline.h"
#include "models/common/tlm_target.h"
#include "models/memory/l2/host_array.h"
#include "models/memory/l2/mshr_holds.h"
#include "models/memory/l2/replacement_policy.h"

namespace asim {

class ConfigNode;

// Told when prefetched bytes stop occupying the L2 for the prefetcher's accounting: on the first
// demand access to a prefetched line (consumed), on its eviction (unused), or at once when a
// prefetch found the line already present.
class L2PrefetchListener {
public:
    virtual ~L2PrefetchListener() = default;
    virtual void prefetch_released(std::size_t partition, uint64_t bytes) = 0;
};

struct L2Params {
    uint64_t size_bytes = 64ULL << 20;
    uint64_t line_bytes = 512;
    uint64_t sector_bytes = 512;  // declared default: the line (one sector per line)
    uint32_t ways = 16;
    uint32_t slices = 32;
    double slice_bandwidth_bytes_per_s = 1.5e12;
    uint64_t clock_hz = 1'650'000'000;
    uint32_t hit_latency_cycles = 100;
    uint32_t mshrs = 256;       // outstanding line fills, whole L2
    uint32_t demand_mshrs = 0;  // of them, kept for demand: prefetches use at most the rest
    // Posted writes in flight to a target that waits (set_target_waits); full: evictions wait.
    uint32_t write_back_entries = 512;
    std::string replacement = "lru";
    ParamValues replacement_params;  // the policy's own
    // Unconsumed prefetched lines are evicted only when every other line of their partition's
    // set is one too: the space the prefetcher holds credit for is not taken back by demand.
    bool protect_prefetched = true;
    // Way-based partitions by stream class (weight, activation, general), in bytes; all zero =
    // one shared partition of every way. Sizes must be whole ways and fit size_bytes. A class
    // marked `rest` has no partition of its own: the rest classes share the ways left over.
    std::array<uint64_t, 3> partition_bytes{0, 0, 0};
    std::array<bool, 3> partition_rest{false, false, false};
    uint64_t address_space_bytes = 288ULL << 30;  // what targets accept (the HBM capacity)

    bool partitioned() const {
        return partition_bytes[0] + partition_bytes[1] + partition_bytes[2] != 0 ||
               partition_rest[0] || partition_rest[1] || partition_rest[2];
    }
    uint64_t sets() const { return size_bytes / line_bytes / ways; }
    uint64_t way_bytes() const { return size_bytes / ways; }
    // The partitions in way order: "weight", "activation", "general" (which takes the ways left
    // over unless some class is `rest`, in which case the rest classes share them, e.g.
    // "activation+general"), or one "shared" partition when none are configured.
    struct Partition {
        std::string name;
        uint32_t ways;
        std::vector<StreamClass> classes;
    };
    std::vector<Partition> partition_layout() const;
    std::vector<std::pair<std::string, std::string>> validate() const;
};

L2Params parse_l2_params(const ConfigNode& node, uint64_t address_space_bytes);

// Per-partition statistics (also the summary's l2_partitions).
struct L2PartitionStats {
    Counter& hits;    // demand accesses whose sectors were all present (or in flight)
    Counter& misses;  // demand accesses that fetched from HBM or allocated
    Counter& merged;  // hits on a line whose fill was still in flight (MSHR merge)
    Counter& evictions;
    Counter& writebacks;       // dirty lines written back
    Counter& prefetch_fills;   // lines filled by CMO prefetch
    Counter& prefetch_useful;  // prefetched lines later hit by demand after the fill completed
    Counter& prefetch_late;    // prefetched lines demanded while the fill was still in flight
    Counter& prefetch_unused;  // prefetched lines evicted before any demand access
};

class L2Cache : public sc_core::sc_module, public TlmTarget<L2Cache> {
public:
    tlm_utils::multi_passthrough_target_socket<L2Cache> core_in;  // from every engine
    tlm_utils::simple_initiator_socket<L2Cache> hbm_out;

    L2Cache(sc_core::sc_module_name name, const L2Params& params, StatsRegistry& stats);
    ~L2Cache() override;

    const L2Params& params() const { return m_params; }
    uint64_t hits() const;
    uint64_t misses() const;
    std::size_t partition_count() const { return m_partitions.size(); }
    const std::string& partition_name(std::size_t p) const { return m_partitions[p].name; }
    const L2PartitionStats& partition_stats(std::size_t p) const { return m_partitions[p].stats; }
    uint64_t partition_bytes(std::size_t p) const {
        return uint64_t{m_partitions[p].ways} * m_params.way_bytes();
    }
    // The partition a stream class allocates into.
    std::size_t partition_of(StreamClass cls) const;
    void set_prefetch_listener(L2PrefetchListener* listener) { m_listener = listener; }
    // The target behind `hbm_out` waits in b_transport (HbmModel::waits()). Lanes (threads of
    // the L2) then make the calls no request waits for: posted writes (write-backs,
    // write-through), each holding one of `write_back_entries` until the target takes it, and a
    // request's runs of misses but its last, so they are in flight together, each from its own
    // issue time, as they are behind a target that computes its delay.
    void set_target_waits(bool waits) { m_target_waits = waits; }
    // The on-die network's one-way latency from a slice to the HBM controllers, added to every
    // fill and write-back each way (models/interconnect/noc). The distances from a request's
    // port to the slices come with the request (TransactionInfo::noc_route).
    void set_hbm_distance(Picoseconds slice_to_hbm) { m_noc_to_hbm = slice_to_hbm; }
    std::size_t slice_count() const { return m_slices.size(); }
    // Records on `timeline` the bytes engines read and write (group `l2_group`) and the bytes the
    // L2 reads from and writes to HBM (group `hbm_group`), as GB/s counters.
    void record_to(Timeline* timeline, const std::string& l2_group, const std::string& hbm_group);
    uint64_t hbm_fetch_bytes_demand() const { return m_hbm_fetch_demand.value(); }
    uint64_t hbm_fetch_bytes_prefetch() const { return m_hbm_fetch_prefetch.value(); }
    void finalize_stats();

private:
    struct Partition {
        std::string name;
        uint32_t first_way = 0;
        uint32_t ways = 0;
        L2PartitionStats stats;
    };
    // A line's tag (its line number, or kInvalidTag) lives in m_tags, apart from the rest of its
    // state: the tag compare of every access then touches 4 B per way (a 16-way set is one host
    // cache line), not a whole Line (the scan of a set was a quarter of a GEMM run's time,
    // waiting on memory). The tag holds a line number's low 32 bits; the high 16 are in its
    // Line (`tag_high`, read only when the low bits match), so memory pools far above the HBM
    // (DESIGN §5b) fit: validate() bounds line numbers to 48 bits.
    static constexpr uint32_t kInvalidTag = ~uint32_t{0};
    static constexpr Picoseconds kFilling = ~Picoseconds{0};
    static constexpr std::size_t kNone = ~std::size_t{0};
    struct Line {
        Picoseconds ready = 0;  // when its last fill completes; kFilling while in flight
        uint8_t valid = 0;      // sector masks
        uint8_t dirty = 0;
        uint8_t partition = 0;
        bool prefetched = false;      // filled by prefetch, not yet demanded
        uint16_t prefetch_bytes = 0;  // bytes of prefetch requests this line holds (for credits)
        uint16_t tag_high = 0;        // line number bits 32..47 (see kInvalidTag)
    };
    // Bits of a line number that choose its set and its slice (masks when the counts are powers
    // of two, as they are in every preset: a 64-bit division per line showed in profiles).
    std::size_t set_of(uint64_t line_number) const;
    // The line loop asks the host CPU for what later lines will touch, in two stages: the tags
    // and replacement state of the set of the line kFarLines ahead, then, kNearLines ahead (by
    // when those tags have arrived), the one Line its tag names, or on a miss the partition's
    // Lines and the set's masks. The arrays are megabytes indexed by a hash, and the loop
    // otherwise waits on one host cache miss after another (a GEMM 8192^3 run was about 70 %
    // such waits); asking for only what will be used keeps the host's miss buffers for it.
    // Simulator speed only; results are identical.
    static constexpr uint64_t kFarLines = 8;  // a power of two (a ring of sets)
    static constexpr uint64_t kNearLines = 3;
    std::size_t slice_of(uint64_t line_number) const;
    // A line being filled: its index and the line number it holds (a fill never lands on a line
    // that was evicted meanwhile).
    struct Fill {
        std::size_t index;
        uint64_t line_number;
    };
    // A run of contiguous bytes to fetch from HBM at one issue time, for the lines in it.
    struct FetchBatch {
        uint64_t begin = 0, end = 0;
        Picoseconds issue = 0;
        std::vector<Fill> lines;  // index kNone: streamed through, not allocated
    };
    // A write to HBM nobody waits for (write-back of a dirty victim, write-through).
    struct PostedWrite {
        Picoseconds arrival;
        uint64_t addr, bytes;
        // The op whose access caused it, for per-op accounting (set when it is queued).
        OpLedger* ledger = nullptr;
        uint64_t op_id = 0;
    };
    // What one b_transport call keeps while it is served. It lives outside the L2's members that
    // other calls touch: a target below that waits (the JEDEC HBM) lets other engines' calls run
    // in between. Reused from a free list (no allocation per call).
    struct Request {
        const TransactionInfo* info = nullptr;
        bool prefetch = false;
        FetchBatch batch;
        std::vector<PostedWrite> posted;  // issued, in order, before the next fetch and at the end
        Picoseconds fills_done = 0;       // latest completion of this request's fetches
        uint32_t fetches_out = 0;         // fetches handed to lanes, not yet returned
        sc_core::sc_event fetches_back;   // the last of them returned
        uint64_t hits = 0, misses = 0;    // demand hits and misses of this request (op_ledger.h)
        // The slices its lines visit, in cycles of the L2 clock: each converted from and to ps
        // once per request, not per line (serve()'s hot path).
        struct SliceVisit {
            uint64_t request = 0;  // serial of the request that last visited (0: none)
            Cycles arrival = 0;    // the lines' arrival at the slice
            Cycles last_end = 0;   // the latest end of their reservations
        };
        std::vector<SliceVisit> slices;  // by slice
        std::vector<uint32_t> visited;   // this request's slices, in first-visit order
        uint64_t serial = 0;
        // Its class, set when serve() begins.
        std::size_t part = 0;  // the partition its lines allocate in
        L2PartitionStats* part_stats = nullptr;
        Counter* class_hits = nullptr;
        Counter* class_misses = nullptr;
        bool write = false;          // a plain write (not an atomic add, not a prefetch)
        bool atomic = false;         // an atomic add: read, add, write back
        bool no_allocate = false;    // misses are not allocated (streamed, written through)
        Picoseconds miss_check = 0;  // when its misses' tag checks are taken to be done
        bool writes() const { return write || atomic; }  // a write of either kind
    };
    // One line of a request, as serve() visits it.
    struct LineVisit {
        uint64_t line_addr = 0, line_number = 0;
        std::size_t set = 0;
        std::size_t index = 0;    // where the line is, or kNone
        uint64_t lo = 0, hi = 0;  // the request's bytes in it
        uint8_t need = 0;         // their sectors
        Picoseconds arrival = 0;  // at its slice
        Picoseconds hop = 0;      // the slice's one-way distance from the requester
    };
    // serve()'s steps for line `v` of request `r`: a plain write; a read (or atomic add, or
    // prefetch) of a line present with every sector it needs (false when sectors are missing:
    // then `missing` holds them and a line is allocated for them when the request allocates);
    // the fetch of the missing sectors.
    void write_line(Request& r, LineVisit& v);
    bool read_present(Request& r, LineVisit& v, uint8_t& missing, Picoseconds& done);
    void fetch_missing(Request& r, const LineVisit& v, uint8_t missing);
    friend class TlmTarget<L2Cache>;
    uint64_t address_limit() const { return m_params.address_space_bytes; }
    // A b_transport call: start_request() takes a Request and sets its class; the line loop
    // (a LineReadAhead asks the host for later lines, the slice is reserved, then write_line,
    // read_present or fetch_missing); the wait for its fetches; finish_request() counts the
    // call's statistics.
    Picoseconds serve(tlm::tlm_generic_payload& p, sc_core::sc_time& delay, int port);
    std::unique_ptr<Request> start_request(tlm::tlm_generic_payload& p);
    class LineReadAhead;
    void finish_request(const Request& r, const tlm::tlm_generic_payload& p, Picoseconds issued);
    void release_prefetch(Line& line);
    std::size_t find(uint64_t line_number, std::size_t set) const;  // index or kNone
    // The first way from `from` on whose tag holds the low 32 bits of `line_number` (reads the
    // tags only); `ways` when none does.
    std::size_t find_low(uint64_t line_number, std::size_t set, std::size_t from) const;
    // A line for `line_number` in partition `part` of `set`, evicting one if needed (its dirty
    // sectors join `r.posted`); kNone when every way of the partition is being filled.
    std::size_t allocate(uint64_t line_number, std::size_t set, std::size_t part, Picoseconds when,
                         Request& r);
    // Marks line `index` as being filled: until its fetch returns, later requests that read it
    // wait for the fill and no allocation evicts it.
    void mark_filling(std::size_t index, std::size_t set);
    bool filling(std::size_t index) const { return m_lines[index].ready == kFilling; }

    // Flushes `r`'s batch, then waits until some fill in flight returns (targets that wait only).
    void wait_for_a_fill(Request& r);
    Picoseconds mshr_issue_time(Picoseconds t, Request& r);
    // Sends `r`'s batch of misses to HBM. Behind a target that waits, a lane fetches it, unless
    // it is the request's `last` (the request then waits for it itself).
    void flush_batch(Request& r, bool last = false);
    // The bookkeeping when a fetch of `lines` returns at `done`: the lines are ready, their
    // MSHRs held until `done`, waiters woken.
    void fetch_returned(Request& r, const std::vector<Fill>& lines, Picoseconds done);
    // Behind a target that waits, lanes (threads of the L2, spawned as needed) make the calls a
    // request does not wait for: its fetches but the last, and posted writes.
    struct LaneJob {
        Request* request = nullptr;  // the request whose `batch` this is; none: `write`
        FetchBatch batch;
        PostedWrite write{};
    };
    struct Lane {
        sc_core::sc_event work;  // notified by the request that hands this lane a job
    };
    // A job for the next idle lane (woken) or a new one; the caller fills it in.
    LaneJob& hand_to_lane();
    void lane(Lane* self);  // serves m_lane_jobs until none is left, then waits among the idle
    Picoseconds hbm_access(Picoseconds arrival, uint64_t addr, uint64_t bytes, bool is_write,
                           const TransactionInfo* info, bool prefetch);
    static Picoseconds kernel_now();
    uint8_t sector_mask(uint64_t lo, uint64_t hi, uint64_t line_addr) const;

    L2Params m_params;
    ClockDomain m_clock;
    std::vector<BandwidthServer> m_slices;
    uint64_t m_sets;
    int m_line_shift;
    int m_sector_shift;
    HostArray<Line> m_lines;     // sets x ways
    HostArray<uint32_t> m_tags;  // sets x ways, see kInvalidTag
    // Per set, a bit per way (ways <= 64): lines being filled (never evicted: their MSHR holds
    // them) and prefetched lines not yet demanded (protected while protect_prefetched). The
    // victim search takes them as its keep mask instead of reading every way's Line.
    struct SetMasks {
        uint64_t filling = 0;
        uint64_t prefetched = 0;
    };
    HostArray<SetMasks> m_set_masks;
    std::unique_ptr<ReplacementPolicy> m_policy;
    std::vector<Partition> m_partitions;
    std::array<std::size_t, 4> m_partition_of_class{};
    // Misses holding MSHRs until a time: one hold per fetch batch, `count` MSHRs each.
    MshrHolds m_mshr_holds;
    uint64_t m_mshrs_held = 0;          // sum of the holds' counts
    uint64_t m_mshrs_in_flight = 0;     // lines of fetches whose HBM call has not returned
    sc_core::sc_event m_fill_returned;  // a fetch returned (notified only when someone waits)
    uint32_t m_fill_waiters = 0;
    std::vector<std::unique_ptr<Request>> m_free_requests;
    bool m_target_waits = false;
    std::deque<LaneJob> m_lane_jobs;  // waiting for a lane
    std::deque<Lane> m_lanes;         // every lane spawned (as many as jobs were ever in flight)
    std::vector<Lane*> m_idle_lanes;  // waiting for a job, not yet notified
    uint32_t m_lane_writes = 0;       // posted writes handed to lanes, not yet taken by the target
    sc_core::sc_event m_write_back_room;  // a posted write was taken (notified when awaited)
    uint32_t m_write_back_waiters = 0;
    PayloadPool m_pool;
    L2PrefetchListener* m_listener = nullptr;
    Picoseconds m_noc_to_hbm = 0;  // slice to HBM controller, one way
    Timeline* m_timeline = nullptr;
    Timeline::TrackId m_tl_read = Timeline::kNoTrack, m_tl_write = Timeline::kNoTrack;
    Timeline::TrackId m_tl_hbm_read = Timeline::kNoTrack, m_tl_hbm_write = Timeline::kNoTrack;

    std::array<Counter*, 4> m_class_hits{};
    std::array<Counter*, 4> m_class_misses{};
    Counter& m_read_bytes;
    Counter& m_write_bytes;
    Counter& m_atomic_bytes;
    Counter& m_hbm_fetch_demand;
    Counter& m_hbm_fetch_prefetch;
    Counter& m_slice_busy_cycles;
    Counter& m_mshr_stalls;
    Counter& m_all_ways_filling;
};

}  // namespace asim
